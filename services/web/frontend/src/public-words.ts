/**
 * The public pages' words in English and Turkish (the `/tr` journey stays Turkish). The
 * Turkish home page is /tr; the sign-in page it leads to is /signin?lang=tr, so a reload keeps the language.
 */
import { useLocation } from 'react-router-dom';

export type PublicLanguage = 'en' | 'tr';

/** The language of the public page at this location. */
export function publicLanguageOf(pathname: string, search: string): PublicLanguage {
  if (pathname === '/tr') return 'tr';
  return new URLSearchParams(search).get('lang') === 'tr' ? 'tr' : 'en';
}

export function usePublicLanguage(): PublicLanguage {
  const location = useLocation();
  return publicLanguageOf(location.pathname, location.search);
}

const WORDS = {
  en: {
    skip: 'Skip to content',
    siteNav: 'Site',
    home: 'Home',
    guide: 'Publishers guide',
    homePath: '/',
    otherLanguage: 'Türkçe',
    otherLanguageCode: 'tr',
    otherLanguagePath: '/tr',
    signIn: 'Sign in',
    signInPath: '/signin',
    workspace: 'Workspace',
    signInTitle: 'Sign in',
    signInHeading: 'Sign in to the workspace',
    signInIntro: 'You sign in with your messaging-platform account: our bot confirms that this browser asked for it. No password is needed.',
    getCode: 'Get a sign-in code',
    getNewCode: 'Get a new code',
    expired: 'This sign-in code expired before it was confirmed. Get a new sign-in link and press Start in the bot within 5 minutes.',
    openBot: 'Open the bot and press Start',
    howItWorks: 'The code travels inside the link: open the bot and press Start. The bot asks you to confirm this sign-in, naming this browser, its address and the time; press Confirm and this page continues by itself. If you did not ask for a sign-in yourself, press Cancel.',
    scan: 'On another device? Scan this QR code with your phone and press Start in the bot:',
    qrTitle: 'QR code of the bot link',
    codeLabel: 'Sign-in code (only if the bot asks for it):',
    waiting: 'Waiting for you to press Start, then Confirm, in the bot…',
    cancelled: 'This sign-in was cancelled in the bot. Get a new sign-in link if you want to try again.',
    confirmed: 'Confirmed. Opening the workspace…',
    validUntil: (time: string) => `The link is valid until ${time}.`,
  },
  tr: {
    skip: 'İçeriğe geç',
    siteNav: 'Site',
    home: 'Ana sayfa',
    // The guide itself is in English, which the link says in Turkish.
    guide: 'Yayıncı rehberi (İngilizce)',
    homePath: '/tr',
    otherLanguage: 'English',
    otherLanguageCode: 'en',
    otherLanguagePath: '/',
    signIn: 'Giriş yap',
    signInPath: '/signin?lang=tr',
    workspace: 'Çalışma alanı',
    signInTitle: 'Giriş yap',
    signInHeading: 'Çalışma alanına giriş',
    signInIntro: 'Mesajlaşma platformu hesabınızla giriş yaparsınız: botumuz bu tarayıcının giriş istediğini onaylar. Parola gerekmez.',
    getCode: 'Giriş bağlantısı al',
    getNewCode: 'Yeni bağlantı al',
    expired: 'Bu giriş kodu onaylanmadan süresi doldu. Yeni bir giriş bağlantısı alın ve 5 dakika içinde botta Başlat’a basın.',
    openBot: 'Botu açın ve Başlat’a basın',
    howItWorks: 'Kod bağlantının içindedir: botu açın ve Başlat’a basın. Bot bu tarayıcıyı, adresini ve saati belirterek girişi onaylamanızı ister; Onayla’ya basın, bu sayfa kendiliğinden devam eder. Girişi siz istemediyseniz İptal’e basın.',
    scan: 'Başka bir cihazda mısınız? Bu QR kodunu telefonunuzla okutun ve botta Başlat’a basın:',
    qrTitle: 'Bot bağlantısının QR kodu',
    codeLabel: 'Giriş kodu (yalnızca bot isterse):',
    waiting: 'Botta Başlat’a, ardından Onayla’ya basmanız bekleniyor…',
    cancelled: 'Bu giriş botta iptal edildi. Yeniden denemek için yeni bir giriş bağlantısı alın.',
    confirmed: 'Onaylandı. Çalışma alanı açılıyor…',
    validUntil: (time: string) => `Bağlantı ${time} saatine kadar geçerlidir.`,
  },
} as const;

export type PublicWords = (typeof WORDS)[PublicLanguage];

export function publicWords(language: PublicLanguage): PublicWords {
  return WORDS[language];
}
