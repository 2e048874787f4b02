/** The counting pipeline's MongoDB side: the totals and the folder that moves counts into them. */
export * from './totals-store';
export * from './folder';
