export * from './layout';
export * from './recorder';
export * from './journal';
export * from './unfolded';
export * from './totals-store';
export * from './folder';
export * from './grain-days';
export * from './months';
