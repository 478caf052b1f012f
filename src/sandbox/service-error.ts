/**
 * A failure of a service call that the function's code sees by name (`HostNotAllowedError`,
 * `FetchQuotaError`…): only errors of this class carry their name across the boundary, so a name
 * the code can catch on is always one the service chose, never a host library's.
 */
export class ServiceError extends Error {
  constructor(name: string, message: string) {
    super(message);
    this.name = name;
  }
}
