export * from './planning';
