import { z } from 'zod';
import { isoTime } from '../../wire/response-schemas.ts';
import { runStatuses } from '../../shared/outcomes.ts';

/** A rotated token, shown this once, with the hook's URL. */
export const hookTokenSchema = z.strictObject({ url: z.string(), token: z.string() }).meta({ id: 'HookToken' });

/** What a hook answers: the run its delivery recorded (a repeat's, as it is now). */
export const hookRunSchema = z
  .strictObject({
    run: z.strictObject({ id: z.string(), status: z.enum(runStatuses), startedAt: isoTime }),
  })
  .meta({ id: 'HookRun' });

/** An automation's view with the token just issued in its trigger: a create or update answers it once. */
export function withHookToken<View extends { trigger: object }>(view: View, token: string | undefined): View {
  return token === undefined ? view : { ...view, trigger: { ...view.trigger, token } };
}
