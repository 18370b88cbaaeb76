export * from './tenancy';
export * from './organizations';
export * from './credentials';
