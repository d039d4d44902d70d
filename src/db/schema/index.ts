export * from './identity';
export * from './organizations';
export * from './teams';
export * from './content';
export * from './collaboration';
export * from './content-services';
export * from './sites';
export * from './integrations';
