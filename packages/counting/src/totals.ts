/** The pipeline's MongoDB side: the day documents of the totals and hourly figures, and the folder that moves counts into them. */
export * from './totals-store';
export * from './folder';
export * from './folder-lease';
