export * from './conditions.js';
export * from './diagnose.js';
export * from './kustomization.js';
export * from './revision.js';
export * from './source.js';
