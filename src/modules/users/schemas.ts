import { z } from '@hono/zod-openapi';
import { email, idList, optionalText, positiveId, text, timestamp } from '../../core/schemas';
import { conflictResponse } from '../../core/routes';
import { bookingSettingsInput, bookingSettingsRead, timeZoneInput } from '../booking';
import { DEFAULT_WORKING_HOURS } from '../../db/schema';

const password = z.string().min(8, 'must be at least 8 characters').max(256, 'must be at most 256 characters');

/** One user, the example of User and (with its organization's name) of MyProfile. */
const userExample = {
  id: 1,
  first_name: 'Ada',
  last_name: 'Lovelace',
  name: 'Ada Lovelace',
  email: 'ada@example.com',
  phone_no: '+44 20 7946 0000',
  role_id: 1,
  role_name: 'admin',
  state_id: 1,
  language: 'en',
  timezone: 'Europe/London',
  job_title: 'Head of Sales',
  booking_slug: 'ada-lovelace',
  booking_enabled: true,
  working_hours: { ...DEFAULT_WORKING_HOURS, saturday: [], sunday: [] },
  meeting_duration: 30,
  buffer_minutes: 0,
  min_notice_minutes: 60,
  booking_meeting_tool: 'none',
  organization_id: '1',
  created_at: '2026-01-15T09:30:00.000Z',
  updated_at: '2026-01-15T09:30:00.000Z',
};

export const UserSchema = z
  .object({
    id: z.number().int().openapi({ description: 'The user’s id (read-only)' }),
    first_name: z.string().openapi({ description: 'First name' }),
    last_name: z.string().nullable().openapi({ description: 'Last name; null when none was given' }),
    name: z.string().openapi({ description: 'First and last name joined by a space (read-only)' }),
    email: z.string().openapi({ description: 'Login email, unique across all organizations; domain lower-cased' }),
    phone_no: z.string().nullable().openapi({ description: 'Phone number; null when none is stored' }),
    role_id: z.number().int().openapi({ description: 'Id of the user’s role (see GET /api/role/list)' }),
    role_name: z
      .string()
      .openapi({ description: 'Name of the user’s role: admin, manager, sales_rep or an added role' }),
    state_id: z.number().int().openapi({ description: '1 = active, 0 = inactive (an inactive user cannot log in)' }),
    language: z.string().nullable().openapi({ description: 'Preferred language, as the client set it; null: not set' }),
    timezone: z.string().openapi({
      description: 'IANA time zone (e.g. Europe/London; default UTC): the booking page reads working_hours in it',
    }),
    ...bookingSettingsRead,
    organization_id: z.string().openapi({ description: 'The user’s organization id, as a string' }),
    created_at: timestamp('When the user was created'),
    updated_at: timestamp('When the user last changed'),
  })
  .openapi('User', {
    description: 'A user of the organization',
    example: userExample,
  });

export const MyProfileSchema = UserSchema.extend({
  organization_name: z.string().openapi({ description: 'Name of the caller’s organization' }),
}).openapi('MyProfile', {
  description: 'The calling user, with the name of its organization',
  example: { ...userExample, organization_name: 'Analytical Engines Ltd' },
});

/** GET /api/users/list filters beyond the standard list parameters (the list itself: service.ts `userList`). */
export const userListFilters = {
  role_id: idList('Role ids, comma-separated'),
  state_id: idList('States, comma-separated (1 active, 0 inactive)'),
};

export const AddUserBody = z
  .object({
    first_name: text(1, 50).openapi({ description: 'First name, 1 to 50 characters' }),
    last_name: optionalText(50).openapi({ description: 'Last name, up to 50 characters; optional' }),
    email: email.openapi({
      description: 'Login email; must not have an account in any organization (409 email_taken)',
    }),
    phone_no: text(1, 30).openapi({ description: 'Phone number, 1 to 30 characters' }),
    password: password.openapi({ description: 'Initial password, 8 to 256 characters' }),
    role_id: positiveId.optional().openapi({ description: 'Defaults to the sales_rep role' }),
  })
  .openapi('AddUserRequest', {
    description: 'A new user of the caller’s organization',
    example: {
      first_name: 'Grace',
      last_name: 'Hopper',
      email: 'grace@example.com',
      phone_no: '+1 202 555 0100',
      password: 'a long passphrase',
      role_id: 2,
    },
  });

export const UpdateUserBody = z
  .object({
    first_name: text(1, 50).openapi({ description: 'First name, 1 to 50 characters (required)' }),
    last_name: optionalText(50).openapi({
      description: 'Last name, up to 50 characters; omitted keeps it, null clears it',
    }),
    email: email.openapi({
      description: 'Login email (required); another account’s email is a 409 email_taken',
    }),
    phone_no: text(1, 30).openapi({ description: 'Phone number, 1 to 30 characters (required)' }),
    language: optionalText(20).openapi({ description: 'Preferred language, up to 20 characters; null clears it' }),
    timezone: timeZoneInput.nullish().openapi({
      description:
        'IANA time zone (e.g. Europe/London), checked against the runtime’s zone data; null resets it to UTC',
    }),
    ...bookingSettingsInput,
    role_id: positiveId.optional().openapi({ description: 'Admins only' }),
    state_id: z
      .union([z.literal(0), z.literal(1)])
      .optional()
      .openapi({ description: 'Admins only: 1 active, 0 inactive' }),
  })
  .openapi('UpdateUserRequest', {
    description: 'A user’s new profile; role_id and state_id only for admins',
    example: {
      first_name: 'Grace',
      last_name: 'Hopper',
      email: 'grace@example.com',
      phone_no: '+1 202 555 0100',
      timezone: 'America/New_York',
    },
  });

export const ChangePasswordBody = z
  .object({
    current_password: z
      .string()
      .min(1, 'is required')
      .max(256)
      .openapi({ description: 'The caller’s current password (checked)' }),
    new_password: password.openapi({ description: 'The new password, 8 to 256 characters' }),
    confirm_password: z
      .string()
      .min(1, 'is required')
      .max(256)
      .openapi({ description: 'new_password again; a mismatch is a 422' }),
  })
  .openapi('ChangePasswordRequest', {
    description: 'The caller’s current password and the new one, twice',
    example: {
      current_password: 'correct horse',
      new_password: 'battery staple 42',
      confirm_password: 'battery staple 42',
    },
  });

export const DeleteUserBody = z
  .object({ user_id: positiveId.openapi({ description: 'Id of the user to delete (not the caller)' }) })
  .openapi('DeleteUserRequest', { description: 'The user to delete', example: { user_id: 7 } });

/** 409 when the email already has an account (emails are unique across organizations: login is by email alone). */
export const emailTakenConflict = conflictResponse(
  'EmailTakenConflict',
  'An account with this email already exists (error.code email_taken)',
  [{ code: 'email_taken' }],
);

export const userUpdateConflict = conflictResponse(
  'UserUpdateConflict',
  'The email belongs to another user (error.code email_taken), the booking_slug to another user of any organization (error.code booking_slug_taken), or the change would leave the organization without an active admin (error.code last_admin)',
  [{ code: 'email_taken' }, { code: 'booking_slug_taken' }, { code: 'last_admin' }],
);

export const userDeleteConflict = conflictResponse(
  'UserDeleteConflict',
  'The deletion would leave the organization without an active admin (error.code last_admin): another admin removed the caller meanwhile',
  [{ code: 'last_admin' }],
);
