import { Link } from 'react-router-dom';
import { PlacementSlot } from '../components/PlacementSlot';
import { usePageTitle } from '../hooks/page-title';

export function TurkishPage() {
  usePageTitle('Türkçe');
  return (
    <div lang="tr">
      <section className="hero">
        <h1>Onaylı botlar ve kanallar için sponsorlu içerikler</h1>
        <p>
          Publisher pilot, reklam verenleri incelenmiş yayıncılarla buluşturur. Yayıncılar kendi sunucularından tek seferde bir içerik
          ister, içeriği "Sponsorlu" etiketiyle gönderir ve teslimatı onaylar. Hiçbir ücret alınmaz: her teslimat faturalandırılmayan bir
          pilot olayıdır.
        </p>
        <p>
          <Link className="button" to="/signin?lang=tr">
            Çalışma alanına giriş yapın
          </Link>
        </p>
      </section>
      <section>
        <h2>Toplamlar ne anlama gelir?</h2>
        <p>
          Toplamlar faturalandırılabilir gösterimler, tekil kişiler veya dönüşümler değildir. Onaylar yayıncılar tarafından bildirilir ve
          tıklamalar otomatik erişim içerebilir.
        </p>
      </section>
      <footer className="site-footer">
        <PlacementSlot slot="tr-footer" label="Sponsorlu" />
        <p>Publisher pilot · pilot sürüm 0.1.0</p>
      </footer>
    </div>
  );
}
