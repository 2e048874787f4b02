import { useState } from 'react';
import { safeHttpsUrl } from '../limits';

interface CreativeProps {
  title: string;
  text: string;
  buttonText: string;
  imageUrl?: string | null;
  destinationUrl?: string;
}

/**
 * The creative as a publisher must render it: a Sponsored label, title and text as plain text, the button.
 * Each text takes its direction from its own first strong letter (dir="auto"), as the messaging app does.
 */
export function CreativePreview({ title, text, buttonText, imageUrl, destinationUrl }: CreativeProps) {
  const image = safeHttpsUrl(imageUrl);
  const href = safeHttpsUrl(destinationUrl);
  // The address whose image failed to load; a new address is tried afresh.
  const [broken, setBroken] = useState<string | null>(null);
  return (
    <figure className="creative" aria-label="Preview of the creative">
      <span className="sponsored">Sponsored</span>
      {image ? <img key={image} src={image} alt="" className="creative-image" referrerPolicy="no-referrer" onError={() => setBroken(image)} onLoad={() => setBroken(null)} /> : null}
      {image && broken === image ? (
        <p className="warning" role="status" data-testid="image-broken">
          The image did not load here, so the messaging app may show the ad without it. Check that it is public:{' '}
          <a href={image} target="_blank" rel="noopener noreferrer" className="break">
            {image}
          </a>
        </p>
      ) : null}
      <p className="creative-title" data-testid="preview-title" dir="auto">
        {title || 'Title'}
      </p>
      <p className="creative-text" dir="auto" data-testid="preview-text">
        {text || 'Message text'}
      </p>
      {href ? (
        <a className="button" href={href} target="_blank" rel="noopener noreferrer sponsored" dir="auto">
          {buttonText || 'Button'}
        </a>
      ) : (
        <span className="button button-disabled" dir="auto">
          {buttonText || 'Button'}
        </span>
      )}
      <figcaption className="help">Shown as plain text; publishers never treat it as markup.</figcaption>
    </figure>
  );
}
