/** The counting pipeline's MongoDB side: the day documents of the totals and hourly figures (the breakdowns read them too) and the folder that moves counts into them. */
export * from './totals-store';
export * from './folder';
export * from './folder-lease';
export * from './pair-documents';
