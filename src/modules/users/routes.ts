/**
 * Users of the caller's organization (spec "Authentication and users").
 */
import { created, list, ok } from '../../core/http';
import { clientIp } from '../../core/rate-limit';
import { withOwnDatabase } from '../../db/client';
import { DeletedId } from '../../core/schemas';
import { createRouter, defineRoute, envelope, idParam, jsonBody, listEnvelope } from '../../core/routes';
import { FreshTokenSchema } from '../auth';
import {
  AddUserBody,
  ChangePasswordBody,
  DeleteUserBody,
  emailTakenConflict,
  MyProfileSchema,
  UpdateUserBody,
  UserSchema,
  userDeleteConflict,
  userUpdateConflict,
} from './schemas';
import { addUser, changePassword, deleteUser, getMyProfile, listUsers, updateUser, UserListQuery } from './service';

export const userRoutes = createRouter();
const tags = ['Users'];

userRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/api/user/my',
    operationId: 'getMyProfile',
    tags,
    summary: 'The caller’s profile, with its organization name',
    description: "The calling user's own profile, with its role and the name of its organization.",
    auth: 'bearer',
    responses: { 200: envelope(MyProfileSchema) },
  }),
  async (c) => ok(c, await getMyProfile(c.var.tenant)),
);

userRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/api/user/list',
    operationId: 'listUsers',
    tags,
    summary: 'Users of the organization',
    description:
      "Users of the caller's organization (deleted users are not listed), with the standard list parameters.",
    auth: 'bearer',
    request: { query: UserListQuery },
    responses: { 200: listEnvelope(UserSchema) },
  }),
  async (c) => list(c, await listUsers(c.var.tenant, c.req.valid('query'))),
);

userRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/api/user/add',
    operationId: 'addUser',
    tags,
    summary: 'Add a user (admins only)',
    description:
      "Creates a user in the caller's organization with the given role and password. The new user can log in at once. The email must be free across all organizations (409 `email_taken`).",
    auth: 'bearer',
    roles: ['admin'],
    request: { body: jsonBody(AddUserBody) },
    responses: { 201: envelope(UserSchema, 'User created'), 409: emailTakenConflict },
  }),
  async (c) => created(c, await addUser(c.var.tenant, c.req.valid('json')), 'User created'),
);

userRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/api/user/update/{id}',
    operationId: 'updateUser',
    tags,
    summary: 'Update a user (yourself, or anyone as an admin)',
    description:
      "Changes a user's profile. Any user may change their own name, email, phone, language and timezone; changing someone else, or anyone's `role_id` or `state_id`, needs the admin role (403 `admin_only`). A new role or state ends that user's existing tokens. You cannot deactivate yourself (403 `cannot_deactivate_self`), and the organization always keeps one active admin (409 `last_admin`). `first_name`, `email` and `phone_no` are required (send the current values to keep them); an omitted optional field keeps its value, null clears it.",
    auth: 'bearer',
    request: { params: idParam(), body: jsonBody(UpdateUserBody) },
    responses: {
      200: envelope(UserSchema, 'User updated'),
      409: userUpdateConflict,
    },
  }),
  async (c) => ok(c, await updateUser(c.var.tenant, c.req.valid('param').id, c.req.valid('json')), 'User updated'),
);

userRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/api/user/change-password',
    operationId: 'changePassword',
    tags,
    summary: 'Change the caller’s password: every token issued before ends, and `data` is a fresh one for the caller',
    description:
      "Changes the caller's password after checking the current one (a wrong one is a 422 on current_password); `new_password` and `confirm_password` must match (422). Every token issued before ends, this one included: `data` is a fresh token for the caller. A wrong current password counts as a failed login of the account, under the same limits: after 5 from one address that address gets 429 with Retry-After until the oldest leaves the 15-minute window (see POST /api/auth/login).",
    auth: 'bearer',
    // One write (the new password), standalone: no transaction stays open while the sign-in
    // records are read and written on the owner's connection.
    transaction: false,
    request: { body: jsonBody(ChangePasswordBody) },
    responses: { 200: envelope(FreshTokenSchema, 'Password changed') },
  }),
  async (c) => {
    const grant = await changePassword(
      c.var.tenant,
      c.var.config.JWT_SECRET,
      c.req.valid('json'),
      clientIp(c),
      (work) => withOwnDatabase(c.var.config, work),
    );
    return ok(c, grant, 'Password changed');
  },
);

userRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/api/user/delete',
    operationId: 'deleteUser',
    tags,
    summary: 'Delete a user (admins only; not yourself)',
    description:
      'Deletes a user of the organization (soft delete: the user can no longer log in and disappears from lists). You cannot delete yourself (403 `cannot_delete_self`), and the organization always keeps one active admin (409 `last_admin`, when another admin removed you meanwhile).',
    auth: 'bearer',
    // In a transaction: the admins lock (assertAnAdminRemains) holds until the delete commits.
    roles: ['admin'],
    request: { body: jsonBody(DeleteUserBody) },
    responses: { 200: envelope(DeletedId, 'User deleted'), 409: userDeleteConflict },
  }),
  async (c) => {
    const { user_id } = c.req.valid('json');
    await deleteUser(c.var.tenant, user_id);
    return ok(c, { id: user_id }, 'User deleted');
  },
);
