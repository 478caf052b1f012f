import { afterAll } from 'vitest';
import { answerDrifts } from '../support/answer-check.ts';

// A file whose API answered anything the OpenAPI document does not describe fails, whether or not
// its tests looked at that answer (test/support/answer-check.ts).
afterAll(() => {
  if (answerDrifts.length > 0)
    throw new Error(`Answers unlike the OpenAPI document:\n${[...new Set(answerDrifts)].join('\n')}`);
});
