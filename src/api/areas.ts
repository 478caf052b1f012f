import type { AppError } from '../errors.ts';

/**
 * The interface gives two error shapes: the functions area's envelope with lower-case codes, and
 * a bare `{error}` with upper-case codes for automations and secrets. Everything else under /v1
 * (unknown paths, health, account) speaks the functions area's shape.
 */
export type Area = 'functions' | 'automations' | 'secrets' | 'general';

export function areaOf(path: string): Area {
  const segment = path.split('/')[2];
  if (segment === 'functions' || segment === 'automations' || segment === 'secrets') return segment;
  return 'general';
}

export function errorBody(area: Area, error: AppError): unknown {
  const upperCase = area === 'automations' || area === 'secrets';
  const body = {
    code: upperCase ? error.code.toUpperCase() : error.code,
    message: error.message,
    details: error.details,
  };
  return upperCase ? { error: body } : { success: false, error: body };
}
