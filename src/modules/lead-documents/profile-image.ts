/**
 * A lead's profile image: PNG, JPEG, GIF or WebP recognised by magic bytes, stored in R2
 * (category `profile_image`) and linked by `leads.profile_image_file_id`. A new upload
 * replaces the old image, whose bytes are removed unless something else still uses them.
 */
import { eq, isNull, sql } from 'drizzle-orm';
import { leads } from '../../db/schema';
import { tenantWhere, type TenantContext } from '../../db/tenant';
import { NotFound } from '../../core/errors';
import { recordFeed } from '../feed';
import { deleteStoredFileIfUnused, fileResponse, findStoredFile, storeUpload } from '../files';
import { acceptUpload, type IMAGE_TYPES } from '../files';

async function findLeadImage(ctx: TenantContext, leadId: number): Promise<{ profileImageFileId: number | null }> {
  const [lead] = await ctx.db
    .select({ profileImageFileId: leads.profileImageFileId })
    .from(leads)
    .where(tenantWhere(ctx, leads, eq(leads.id, leadId), isNull(leads.deletedAt)));
  if (!lead) throw new NotFound('Lead', leadId);
  return lead;
}

export async function uploadProfileImage(ctx: TenantContext, bucket: R2Bucket, leadId: number, image: File) {
  const { profileImageFileId: previous } = await findLeadImage(ctx, leadId);
  const upload = await acceptUpload(image, 'image', 'image');
  const stored = await storeUpload(ctx, bucket, 'profile_image', upload);
  await ctx.db
    .update(leads)
    .set({ profileImageFileId: stored.id, updatedAt: sql`now()` })
    .where(tenantWhere(ctx, leads, eq(leads.id, leadId)));
  if (previous !== null) await deleteStoredFileIfUnused(ctx, bucket, previous);
  await recordFeed(ctx, [
    {
      modelType: 'lead',
      modelId: leadId,
      action: 'profile_image_updated',
      changes: { profile_image_file_id: { from: previous, to: stored.id } },
    },
  ]);
  return {
    lead_id: leadId,
    file_id: stored.id,
    file_name: stored.fileName,
    content_type: stored.contentType as keyof typeof IMAGE_TYPES,
    size_bytes: stored.sizeBytes,
    profile_image_url: `/api/lead/${leadId}/profile-image`,
  };
}

/** The image, served inline; 404 when the lead has none. */
export async function profileImageResponse(ctx: TenantContext, bucket: R2Bucket, leadId: number): Promise<Response> {
  const { profileImageFileId } = await findLeadImage(ctx, leadId);
  if (profileImageFileId === null) throw new NotFound('Profile image of lead', leadId);
  return fileResponse(bucket, await findStoredFile(ctx, profileImageFileId), 'inline');
}
