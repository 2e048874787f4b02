/** The header of a 204 that says why nothing qualified (API.md); its values are the contracts' NO_FILL_REASONS. */
export const NO_FILL_REASON_HEADER = 'Pilot-No-Fill-Reason';
