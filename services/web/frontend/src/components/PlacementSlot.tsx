/**
 * A website placement: fetched from /api/site/placements/{slot} (204: nothing to show) and rendered with
 * its Sponsored label, image and button. One impression per page view is reported, and only once at least
 * half of it is visible (IntersectionObserver at 0.5), never before.
 */
import { useEffect, useRef, useState, type Ref } from 'react';
import { useQuery } from '@tanstack/react-query';
import { api } from '../api';
import { safeHttpsUrl } from '../limits';
import type { SitePlacement, Slot } from '../types';

type ImpressionState = 'waiting' | 'reported' | 'failed';

export function PlacementSlot({ slot, label = 'Sponsored' }: { slot: Slot; label?: string }) {
  const placement = useQuery({
    queryKey: ['site-placement', slot],
    queryFn: ({ signal }) => api<SitePlacement>(`/api/site/placements/${slot}`, { signal }),
    staleTime: 60_000,
    retry: false,
  });
  if (!placement.data) return null;
  return <PlacementCard placement={placement.data} label={label} />;
}

function PlacementCard({ placement, label }: { placement: SitePlacement; label: string }) {
  const ref = useRef<HTMLElement>(null);
  const [impression, setImpression] = useState<ImpressionState | 'unobserved'>('unobserved');
  const reported = useRef(false);

  useEffect(() => {
    const element = ref.current;
    if (!element || typeof IntersectionObserver === 'undefined') return;
    const observer = new IntersectionObserver(
      (entries) => {
        const visible = entries.some((entry) => entry.isIntersecting && entry.intersectionRatio >= 0.5);
        if (!visible) {
          if (!reported.current) setImpression('waiting');
          return;
        }
        if (reported.current) return;
        reported.current = true;
        observer.disconnect();
        api<void>(`/api/site/placements/${placement.slot}/impressions`, { method: 'POST', body: { placementId: placement.placementId } })
          .then(() => setImpression('reported'))
          .catch(() => setImpression('failed'));
      },
      { threshold: 0.5 },
    );
    observer.observe(element);
    return () => observer.disconnect();
  }, [placement.slot, placement.placementId]);

  return <PlacementView ref={ref} placement={placement} label={label} impression={impression} />;
}

type PlacementLook = Pick<SitePlacement, 'slot' | 'title' | 'buttonText' | 'destinationUrl' | 'imageUrl'>;

/**
 * A placement as the site draws it; the placements editor shows the same drawing as its preview (without
 * the data-slot mark, which names only the live placement on a page).
 */
export function PlacementView({ placement, label, impression, preview = false, ref }: { placement: PlacementLook; label: string; impression?: string; preview?: boolean; ref?: Ref<HTMLElement> }) {
  const image = safeHttpsUrl(placement.imageUrl);
  const href = safeHttpsUrl(placement.destinationUrl);
  return (
    <aside
      ref={ref}
      className={`placement placement-${placement.slot}`}
      aria-label={preview ? `Preview: ${label}` : label}
      data-slot={preview ? undefined : placement.slot}
      data-impression={impression}
    >
      <span className="sponsored">{label}</span>
      {image ? <img src={image} alt="" className="placement-image" referrerPolicy="no-referrer" /> : null}
      <p className="placement-title">{placement.title}</p>
      {href ? (
        <a className="button" href={href} target="_blank" rel="noopener noreferrer sponsored">
          {placement.buttonText}
        </a>
      ) : null}
    </aside>
  );
}
