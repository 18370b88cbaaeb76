/**
 * A lead's profile image: PNG, JPEG, GIF or WebP recognised by magic bytes, stored in R2
 * (category `profile_image`) and linked by `leads.profile_image_file_id`. A new upload
 * replaces the old image, whose bytes are removed unless something else still uses them.
 */
import { eq, isNull, sql } from 'drizzle-orm';
import { leads } from '../../db/schema';
import { tenantWhere, type TenantContext } from '../../db/tenant';
import { NotFound } from '../../core/errors';
import { changesSql, feedEntriesFrom } from '../feed';
import { deleteStoredFileIfUnused, fileResponse, findStoredFile, putUpload, storedFileInsert } from '../files';
import { acceptUpload, type IMAGE_TYPES } from '../files';

async function findLeadImage(ctx: TenantContext, leadId: number): Promise<{ profileImageFileId: number | null }> {
  const [lead] = await ctx.db
    .select({ profileImageFileId: leads.profileImageFileId })
    .from(leads)
    .where(tenantWhere(ctx, leads, eq(leads.id, leadId), isNull(leads.deletedAt)));
  if (!lead) throw new NotFound('Lead', leadId);
  return lead;
}

/**
 * The bytes go to R2 first, then one statement records them: the stored file, the lead pointing at
 * it and the feed entry. The replaced image's removal follows, carrying the COMMIT (its bytes go
 * after it); with no image replaced the COMMIT goes alone. The lead deleted meanwhile: 404, and the
 * transaction's rollback removes the bytes.
 */
export async function uploadProfileImage(ctx: TenantContext, bucket: R2Bucket, leadId: number, image: File) {
  const { profileImageFileId: previous } = await findLeadImage(ctx, leadId);
  const upload = await acceptUpload(image, 'image', 'image');
  const file = await putUpload(ctx, bucket, 'profile_image', upload);
  const liveLead = sql`exists (select 1 from ${leads} l where l.organization_id = ${ctx.orgId} and l.id = ${leadId} and l.deleted_at is null)`;
  const result = await ctx.db.execute<{ file_id: number }>(sql`
    with written_file as (${storedFileInsert(ctx, file, liveLead)}),
    pointed as (
      update ${leads} set profile_image_file_id = f.id, updated_at = now()
      from written_file f
      where ${leads.organizationId} = ${ctx.orgId} and ${leads.id} = ${leadId} and ${leads.deletedAt} is null
      returning ${leads.id} as lead_id, f.id as file_id
    ),
    feed as (${feedEntriesFrom(ctx, {
      from: sql`pointed p`,
      modelType: 'lead',
      modelId: sql`p.lead_id`,
      action: 'profile_image_updated',
      changes: changesSql({ profile_image_file_id: { from: sql`${previous}::bigint`, to: sql`p.file_id` } }),
    })})
    select file_id from pointed`);
  const written = result.rows[0];
  if (!written) throw new NotFound('Lead', leadId);
  const fileId = Number(written.file_id);
  if (previous !== null) {
    // The replaced image's removal is the request's last statement: its COMMIT goes with it.
    ctx.commitWithNext?.();
    await deleteStoredFileIfUnused(ctx, bucket, previous);
  }
  return {
    lead_id: leadId,
    file_id: fileId,
    file_name: file.fileName,
    content_type: file.contentType as keyof typeof IMAGE_TYPES,
    size_bytes: file.sizeBytes,
    profile_image_url: `/api/lead/${leadId}/profile-image`,
  };
}

/** The image, served inline; 404 when the lead has none. */
export async function profileImageResponse(ctx: TenantContext, bucket: R2Bucket, leadId: number): Promise<Response> {
  const { profileImageFileId } = await findLeadImage(ctx, leadId);
  if (profileImageFileId === null) throw new NotFound('Profile image of lead', leadId);
  return fileResponse(bucket, await findStoredFile(ctx, profileImageFileId), 'inline');
}
