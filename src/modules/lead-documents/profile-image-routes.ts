/**
 * Upload and read a lead's profile image (mounted by routes.ts).
 */
import { ok } from '../../core/http';
import { binaryDownload, createRouter, defineRoute, ErrorEnvelope, envelope, idParam } from '../../core/routes';
import { IMAGE_TYPES } from '../files';
import { MAX_UPLOAD_MB } from '../files';
import { ProfileImageForm, ProfileImageSchema } from './schemas';
import { profileImageResponse, uploadProfileImage } from './profile-image';

export const profileImageRoutes = createRouter();
const tags = ['Leads'];

profileImageRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/api/lead/{id}/upload-profile-image',
    operationId: 'uploadLeadProfileImage',
    tags,
    summary: 'Set a lead’s profile image (PNG, JPEG, GIF or WebP, checked by content); replaces the previous one',
    description:
      "Sets a lead's profile image from a multipart upload (field `image`). The type is checked from the bytes, not the file name: PNG, JPEG, GIF or WebP only (422 otherwise). The previous image is replaced (its bytes deleted unless something else uses them). Writes a `profile_image_updated` feed entry.",
    auth: 'bearer',
    request: {
      params: idParam(),
      body: { required: true, content: { 'multipart/form-data': { schema: ProfileImageForm } } },
    },
    responses: {
      200: envelope(ProfileImageSchema, 'Profile image updated'),
      413: {
        description: `Image larger than ${MAX_UPLOAD_MB} MB`,
        content: { 'application/json': { schema: ErrorEnvelope } },
      },
    },
  }),
  async (c) =>
    ok(
      c,
      await uploadProfileImage(c.var.tenant, c.env.FILES, c.req.valid('param').id, c.req.valid('form').image),
      'Profile image updated',
    ),
);

profileImageRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/api/lead/{id}/profile-image',
    operationId: 'getLeadProfileImage',
    tags,
    summary: 'The lead’s profile image, served inline with its content type (404 when none)',
    description: "Streams the lead's profile image inline, with its stored content type. A lead without one is a 404.",
    auth: 'bearer',
    request: { params: idParam() },
    responses: {
      200: binaryDownload('The image, served inline', Object.keys(IMAGE_TYPES)),
    },
  }),
  async (c) => profileImageResponse(c.var.tenant, c.env.FILES, c.req.valid('param').id),
);
