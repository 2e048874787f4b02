/**
 * The counting pipeline's Redis side, which every counting service loads (allocation too): what is counted
 * and where, counting once, the folder's journal, what is not folded yet. The MongoDB side (the totals and
 * their folder) is `@pilot/counting/totals`, so a service without a database never loads the driver.
 */
export * from './layout';
export * from './recorder';
export * from './once-sets';
export * from './journal';
export * from './unfolded';
export * from './grain-days';
export * from './breakdown-layout';
export * from './hourly-layout';
