/** The counting pipeline's MongoDB side: the totals, the breakdowns, the hourly figures and the folder that moves counts into them. */
export * from './totals-store';
export * from './breakdown-store';
export * from './folder';
export * from './folder-lease';
