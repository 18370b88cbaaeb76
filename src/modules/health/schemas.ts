import { z } from '@hono/zod-openapi';

export const HealthSchema = z
  .object({
    status: z.literal('ok').openapi({ description: 'Always ok: the Worker answered' }),
    database: z.literal('ok').openapi({ description: 'Always ok here: an unreachable database answers 503 instead' }),
  })
  .openapi({ description: 'Both checks passed' });
