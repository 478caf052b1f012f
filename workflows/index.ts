export { executeFunction } from './execute-function.ts';
export { pingWorkflow } from './ping.ts';
