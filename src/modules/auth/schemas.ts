import { z } from '@hono/zod-openapi';
import { email, optionalText, text, timestamp } from '../../core/schemas';

export const LoginBody = z
  .object({
    // No schema-wide message: it would also answer "is required" for an email too long or not text.
    email: z
      .string()
      .trim()
      .min(1, 'is required')
      .max(254)
      .openapi({ description: 'The account’s email (compared case-insensitively)', example: 'ada@example.com' }),
    password: z
      .string()
      .min(1, 'is required')
      .max(256)
      .openapi({ description: 'The account’s password, as set (never trimmed)', example: 'correct horse' }),
  })
  .openapi('LoginRequest', {
    description: 'Credentials to exchange for a token; a missing or empty field is a 400',
    example: { email: 'ada@example.com', password: 'correct horse' },
  });

export const SignupBody = z
  .object({
    organization_name: text(1, 100).openapi({ description: 'Name of the new organization, 1 to 100 characters' }),
    first_name: text(1, 50).openapi({ description: 'First name of the admin user, 1 to 50 characters' }),
    last_name: optionalText(50).openapi({ description: 'Last name of the admin user, up to 50 characters; optional' }),
    email: email.openapi({
      description: 'Login email of the admin user; must not have an account in any organization (409 email_taken)',
    }),
    password: z
      .string()
      .min(8, 'must be at least 8 characters')
      .max(256, 'must be at most 256 characters')
      .openapi({ description: 'Password of the admin user, 8 to 256 characters' }),
  })
  .openapi('SignupRequest', {
    description: 'A new organization and its first user, who becomes its admin',
    example: {
      organization_name: 'Analytical Engines Ltd',
      first_name: 'Ada',
      last_name: 'Lovelace',
      email: 'ada@example.com',
      password: 'correct horse battery',
    },
  });

export const TokenUser = z
  .object({
    id: z.number().int().openapi({ description: 'The user’s id' }),
    email: z.string().openapi({ description: 'The user’s login email' }),
    name: z.string().openapi({ description: 'First and last name, joined by a space' }),
    organization_id: z.string().openapi({ description: 'The organization id, as a string' }),
    role_name: z.string().openapi({ description: 'The user’s role: admin, manager, sales_rep or an added role' }),
  })
  .openapi({ description: 'The user the token acts as' });

const tokenFields = {
  access_token: z
    .string()
    .openapi({ description: 'The bearer token (a JWT): send it as `Authorization: Bearer <access_token>`' }),
  token_type: z.literal('Bearer').openapi({ description: 'Always Bearer' }),
  expires_in: z.number().int().openapi({ description: 'Seconds until the token expires (30 days)', example: 2592000 }),
  expires_at: timestamp('When the token expires'),
  user: TokenUser,
};

const exampleGrant = {
  access_token: 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl',
  token_type: 'Bearer',
  expires_in: 2592000,
  expires_at: '2026-02-14T09:30:00.000Z',
  user: { id: 1, email: 'ada@example.com', name: 'Ada Lovelace', organization_id: '1', role_name: 'admin' },
};

export const TokenGrantSchema = z
  .object({
    success: z.literal(true).openapi({ description: 'Always true on a success' }),
    message: z.string().openapi({ description: 'Human-readable outcome, for display or logs' }),
    ...tokenFields,
    data: z.object(tokenFields).openapi({ description: 'The same token fields again, in the envelope’s usual place' }),
  })
  .openapi('TokenGrant', {
    description:
      'A token issued by login or signup. The token fields appear at the top level (as the spec gives them) and again in `data`',
    example: { success: true, message: 'Logged in', ...exampleGrant, data: exampleGrant },
  });

/** A fresh token alone (change-password: every other token of the user has just ended). */
export const FreshTokenSchema = TokenGrantSchema.shape.data.openapi('FreshToken', {
  description: 'A new token for the caller, replacing the ones that just ended',
  example: exampleGrant,
});
