/**
 * Users of the caller's organization (spec "Authentication and users").
 */
import { z } from '@hono/zod-openapi';
import { created, list, ok } from '../../core/http';
import { createRouter, defineRoute, envelope, idParam, jsonBody, listEnvelope } from '../../core/routes';
import { globalSearch, GlobalSearchResult } from '../search/service';
import {
  AddUserBody,
  ChangePasswordBody,
  DeleteUserBody,
  GlobalSearchQuery,
  MyProfileSchema,
  UpdateUserBody,
  UserSchema,
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
    auth: 'bearer',
    request: { body: jsonBody(AddUserBody) },
    responses: { 201: envelope(UserSchema, 'User created') },
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
    auth: 'bearer',
    request: { params: idParam(), body: jsonBody(UpdateUserBody) },
    responses: { 200: envelope(UserSchema, 'User updated') },
  }),
  async (c) => ok(c, await updateUser(c.var.tenant, c.req.valid('param').id, c.req.valid('json')), 'User updated'),
);

userRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/api/user/change-password',
    operationId: 'changePassword',
    tags,
    summary: 'Change the caller’s password',
    auth: 'bearer',
    request: { body: jsonBody(ChangePasswordBody) },
    responses: { 200: envelope(z.null(), 'Password changed') },
  }),
  async (c) => {
    await changePassword(c.var.tenant, c.req.valid('json'));
    return ok(c, null, 'Password changed');
  },
);

userRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/api/user/delete',
    operationId: 'deleteUser',
    tags,
    summary: 'Delete a user (admins only; not yourself)',
    auth: 'bearer',
    request: { body: jsonBody(DeleteUserBody) },
    responses: { 200: envelope(z.object({ id: z.number().int() }), 'User deleted') },
  }),
  async (c) => {
    const { user_id } = c.req.valid('json');
    await deleteUser(c.var.tenant, user_id);
    return ok(c, { id: user_id }, 'User deleted');
  },
);

userRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/api/user/global-search',
    operationId: 'globalSearch',
    tags,
    summary: 'Search the organization’s records (users, and each module’s records as they are added)',
    auth: 'bearer',
    request: { query: GlobalSearchQuery },
    responses: { 200: envelope(GlobalSearchResult) },
  }),
  async (c) => ok(c, await globalSearch(c.var.tenant, c.req.valid('query').search_value)),
);
