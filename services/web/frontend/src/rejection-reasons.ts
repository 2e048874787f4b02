/**
 * Reasons a reviewer picks and then edits: the refusals reviews give most, each saying what to change.
 * The owner reads the reason as written (notifications, the record's page).
 */
export const CAMPAIGN_REJECTION_REASONS: readonly string[] = [
  'The destination page does not match the ad: the title and the text must describe what the button leads to.',
  'The image does not load for everyone: use a public https address that opens without signing in.',
  'The text promises what cannot be promised (guaranteed results, prices or gains that are not real). Remove these claims.',
  'The language chosen is not the language of the text: choose the language the ad is written in.',
  'The button label does not say where it leads: name the page or the action, for example "Open the shop".',
];

export const PLATFORM_REJECTION_REASONS: readonly string[] = [
  'We could not confirm that this platform is yours: its public description does not name your account.',
  'The link does not lead to a public bot or channel: check the username.',
  'The platform shows content the network does not serve ads next to.',
];
