/**
 * A model's structured answer: parsed as JSON and validated with zod, never evaluated, never used
 * as code or SQL. Models sometimes wrap JSON in a Markdown fence or a sentence: the first `{` to the
 * last `}` is what is parsed. An answer that does not fit is a failure of the provider (the call is
 * refunded), reported without the model's text.
 */
import type { z } from 'zod';
import { ProviderFailure } from '../failures';
import type { Generation } from './interface';

export function structuredOutput<T extends z.ZodType>(generation: Generation, schema: T): z.output<T> {
  const start = generation.text.indexOf('{');
  const end = generation.text.lastIndexOf('}');
  let value: unknown;
  try {
    value = start >= 0 && end > start ? JSON.parse(generation.text.slice(start, end + 1)) : undefined;
  } catch {
    value = undefined;
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    const where = parsed.error.issues[0]?.path.join('.') || 'the answer';
    throw new ProviderFailure(
      'rejected',
      generation.provider,
      null,
      `the AI provider's answer did not fit the expected shape (${where}); try again`,
    );
  }
  return parsed.data;
}
