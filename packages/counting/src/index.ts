/** The Redis side, which every counting service loads; the MongoDB side is `@pilot/counting/totals`, so allocation never loads the driver. */
export * from './layout';
export * from './recorder';
export * from './journal';
export * from './unfolded';
export * from './breakdown-layout';
