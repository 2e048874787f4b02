/** Where the ad's button leads, with the host spelled out on its own, so a look-alike address is seen. */
export function DestinationHost({ url }: { url: string }) {
  let host: string | null = null;
  try {
    host = new URL(url).host;
  } catch {
    host = null;
  }
  return (
    <p className="destination" data-testid="destination">
      The button opens <strong data-testid="destination-host">{host ?? 'an address that is not a valid link'}</strong>
      <span className="help"> ({url})</span>
    </p>
  );
}
