import { safeHttpsUrl } from '../limits';

interface CreativeProps {
  title: string;
  text: string;
  buttonText: string;
  imageUrl?: string | null;
  destinationUrl?: string;
}

/** The creative as a publisher must render it: a Sponsored label, title and text as plain text, the button. */
export function CreativePreview({ title, text, buttonText, imageUrl, destinationUrl }: CreativeProps) {
  const image = safeHttpsUrl(imageUrl);
  const href = safeHttpsUrl(destinationUrl);
  return (
    <figure className="creative" aria-label="Preview of the creative">
      <span className="sponsored">Sponsored</span>
      {image ? <img src={image} alt="" className="creative-image" referrerPolicy="no-referrer" /> : null}
      <p className="creative-title" data-testid="preview-title">
        {title || 'Title'}
      </p>
      <p className="creative-text">{text || 'Message text'}</p>
      {href ? (
        <a className="button" href={href} target="_blank" rel="noopener noreferrer sponsored">
          {buttonText || 'Button'}
        </a>
      ) : (
        <span className="button button-disabled">{buttonText || 'Button'}</span>
      )}
      <figcaption className="help">Shown as plain text; publishers never treat it as markup.</figcaption>
    </figure>
  );
}
