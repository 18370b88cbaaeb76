import { z } from '@hono/zod-openapi';
import { email, idList, optionalText, positiveId, text, timestamp } from '../../core/schemas';
import { conflictResponse } from '../../core/routes';

const password = z.string().min(8, 'must be at least 8 characters').max(256, 'must be at most 256 characters');

export const UserSchema = z
  .object({
    id: z.number().int(),
    first_name: z.string(),
    last_name: z.string().nullable(),
    name: z.string(),
    email: z.string(),
    phone_no: z.string().nullable(),
    role_id: z.number().int(),
    role_name: z.string(),
    state_id: z.number().int().openapi({ description: '1 = active, 0 = inactive' }),
    language: z.string().nullable(),
    timezone: z.string().nullable(),
    organization_id: z.string(),
    created_at: timestamp(),
    updated_at: timestamp(),
  })
  .openapi('User');

export const MyProfileSchema = UserSchema.extend({ organization_name: z.string() }).openapi('MyProfile');

/** GET /api/users/list filters beyond the standard list parameters (the list itself: service.ts `userList`). */
export const userListFilters = {
  role_id: idList('Role ids, comma-separated'),
  state_id: idList('States, comma-separated (1 active, 0 inactive)'),
};

export const AddUserBody = z
  .object({
    first_name: text(1, 50),
    last_name: optionalText(50),
    email,
    phone_no: text(1, 30),
    password,
    role_id: positiveId.optional().openapi({ description: 'Defaults to the sales_rep role' }),
  })
  .openapi('AddUserRequest');

export const UpdateUserBody = z
  .object({
    first_name: text(1, 50),
    last_name: optionalText(50),
    email,
    phone_no: text(1, 30),
    language: optionalText(20),
    timezone: optionalText(64),
    role_id: positiveId.optional().openapi({ description: 'Admins only' }),
    state_id: z
      .union([z.literal(0), z.literal(1)])
      .optional()
      .openapi({ description: 'Admins only: 1 active, 0 inactive' }),
  })
  .openapi('UpdateUserRequest');

export const ChangePasswordBody = z
  .object({
    current_password: z.string().min(1, 'is required').max(256),
    new_password: password,
    confirm_password: z.string().min(1, 'is required').max(256),
  })
  .openapi('ChangePasswordRequest');

export const DeleteUserBody = z.object({ user_id: positiveId }).openapi('DeleteUserRequest');

/** 409 when the email already has an account (emails are unique across organizations: login is by email alone). */
export const emailTakenConflict = conflictResponse(
  'EmailTakenConflict',
  'An account with this email already exists (error.code email_taken)',
  [{ code: 'email_taken' }],
);

export const userUpdateConflict = conflictResponse(
  'UserUpdateConflict',
  'The email belongs to another user (error.code email_taken), or the change would leave the organization without an active admin (error.code last_admin)',
  [{ code: 'email_taken' }, { code: 'last_admin' }],
);
