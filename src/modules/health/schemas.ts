import { z } from '@hono/zod-openapi';

export const HealthSchema = z.object({ status: z.literal('ok'), database: z.literal('ok') });
