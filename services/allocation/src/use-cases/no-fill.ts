/** The header of a 204 that says why nothing qualified (API.md); its values are selection's NoFillReason. */
export const NO_FILL_REASON_HEADER = 'Pilot-No-Fill-Reason';
