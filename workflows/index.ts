export { pingWorkflow } from './ping.ts';
