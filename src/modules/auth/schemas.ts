import { z } from '@hono/zod-openapi';
import { email, optionalText, text, timestamp } from '../../core/schemas';

export const LoginBody = z
  .object({
    email: z
      .string({ error: 'is required' })
      .trim()
      .min(1, 'is required')
      .max(254)
      .openapi({ example: 'ada@example.com' }),
    password: z.string({ error: 'is required' }).min(1, 'is required').max(256).openapi({ example: 'correct horse' }),
  })
  .openapi('LoginRequest');

export const SignupBody = z
  .object({
    organization_name: text(1, 100),
    first_name: text(1, 50),
    last_name: optionalText(50),
    email,
    password: z.string().min(8, 'must be at least 8 characters').max(256, 'must be at most 256 characters'),
  })
  .openapi('SignupRequest');

export const TokenUser = z.object({
  id: z.number().int(),
  email: z.string(),
  name: z.string(),
  organization_id: z.string().openapi({ description: 'The organization id, as a string' }),
  role_name: z.string(),
});

export const TokenGrantSchema = z
  .object({
    success: z.literal(true),
    message: z.string(),
    access_token: z.string(),
    token_type: z.literal('Bearer'),
    expires_in: z.number().int().openapi({ example: 2592000 }),
    expires_at: timestamp(),
    user: TokenUser,
    data: z.object({
      access_token: z.string(),
      token_type: z.literal('Bearer'),
      expires_in: z.number(),
      expires_at: timestamp(),
      user: TokenUser,
    }),
  })
  .openapi('TokenGrant');

/** A fresh token alone (change-password: every other token of the user has just ended). */
export const FreshTokenSchema = TokenGrantSchema.shape.data.openapi('FreshToken');
