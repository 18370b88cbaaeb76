/**
 * Request and response shapes of the target-account endpoints: the account (from its field
 * table), its stakeholders, its outreach plans and the bulk email request.
 */
import { z } from '@hono/zod-openapi';
import { nullishAs, positiveId, text, timestamp } from '../../core/schemas';
import { targetAccountFields } from './fields';
import { outreachPlanFields } from './outreach-plan-fields';

export { OUTREACH_CHANNELS } from './outreach-plan-fields';

export const STAKEHOLDER_ROLES = [
  'decision_maker',
  'economic_buyer',
  'champion',
  'influencer',
  'technical_evaluator',
  'end_user',
  'blocker',
  'other',
] as const;
export const BULK_EMAIL_MODES = ['individual', 'bcc'] as const;
export const MAX_BULK_RECIPIENTS = 500;

const exampleHealth = {
  score: 55,
  band: 'warm',
  stage: 'opportunity',
  engaged: true,
  signals: { count: 5, last_at: '2026-01-15T09:30:00.000Z', points: 25 },
  meetings: { count: 1, points: 10 },
  deals: { open: 1, won: 0, points: 20 },
};
const exampleAccount = {
  id: 8,
  company_id: 3,
  company_name: 'Initech',
  owner_id: 4,
  tier: 1,
  estimated_decision_makers: 6,
  icp_fit_score: 85,
  status: 'active',
  health: exampleHealth,
  created_by: 1,
  created_at: '2026-01-15T09:30:00.000Z',
  updated_at: '2026-01-15T09:30:00.000Z',
};

export const CreateTargetAccountBody = z.object(targetAccountFields.createShape).openapi('CreateTargetAccountRequest', {
  description: 'A company of the organization to target as an account',
  example: { company_id: 3, owner_id: 4, tier: 1, estimated_decision_makers: 6, icp_fit_score: 85 },
});

export const UpdateTargetAccountBody = z
  .object(targetAccountFields.updateShape)
  .refine((body) => Object.values(body).some((value) => value !== undefined), {
    message: 'give at least one field to change',
    path: ['status'],
  })
  .openapi('UpdateTargetAccountRequest', {
    description: 'The fields to change; omitted ones keep their value',
    example: { tier: 2, status: 'paused' },
  });

export const TargetAccountView = z
  .object(targetAccountFields.readShape)
  .openapi('TargetAccount', { description: 'A target account with its health', example: exampleAccount });

const stakeholderRole = z.enum(STAKEHOLDER_ROLES, { error: `must be one of ${STAKEHOLDER_ROLES.join(', ')}` });

export const AddStakeholderBody = z
  .object({
    contact_id: positiveId.openapi({
      type: 'integer',
      description: 'A live contact of the account’s company',
      example: 11,
    }),
    stakeholder_role: nullishAs(stakeholderRole, 'string').openapi({
      description: `Role in the buying group: ${STAKEHOLDER_ROLES.join(', ')}; null or absent: none (an existing stakeholder keeps its role)`,
      enum: [...STAKEHOLDER_ROLES],
    }),
  })
  .openapi('AddStakeholderRequest', {
    description: 'A contact to add to the account’s buying group (adding one already there updates its role)',
    example: { contact_id: 11, stakeholder_role: 'champion' },
  });

export const StakeholderView = z
  .object({
    id: z.number().int().openapi({ description: 'The stakeholder record’s id' }),
    target_account_id: z.number().int().openapi({ description: 'The target account' }),
    contact_id: z.number().int().openapi({ description: 'The contact' }),
    contact_name: z.string().openapi({ description: 'The contact’s name' }),
    contact_email: z.string().nullable().openapi({ description: 'The contact’s email; null: none' }),
    designation: z.string().nullable().openapi({ description: 'The contact’s job title; null: none' }),
    stakeholder_role: z
      .enum(STAKEHOLDER_ROLES)
      .nullable()
      .openapi({ description: 'Role in the buying group; null: none given' }),
    created_at: timestamp('When the contact became a stakeholder'),
    updated_at: timestamp('When the record last changed'),
  })
  .openapi('Stakeholder', {
    description: 'A contact of the account’s company in its buying group',
    example: {
      id: 2,
      target_account_id: 8,
      contact_id: 11,
      contact_name: 'Peter Gibbons',
      contact_email: 'peter@initech.example',
      designation: 'VP Engineering',
      stakeholder_role: 'champion',
      created_at: '2026-01-15T09:30:00.000Z',
      updated_at: '2026-01-15T09:30:00.000Z',
    },
  });

export const TargetAccountDetail = TargetAccountView.extend({
  stakeholders: z.array(StakeholderView).openapi({ description: 'Its stakeholders, in the order they were added' }),
}).openapi('TargetAccountDetail', {
  description: 'A target account with its health and stakeholders',
  example: { ...exampleAccount, stakeholders: [] },
});

export const AddOutreachPlanBody = z.object(outreachPlanFields.createShape).openapi('AddOutreachPlanRequest', {
  description: 'One planned outreach step of a target account',
  example: { contact_id: 11, channel: 'email', scheduled_at: '2026-03-09T09:00:00Z', notes: 'Intro to the new VP' },
});

export const OutreachPlanView = z.object(outreachPlanFields.readShape).openapi('OutreachPlan', {
  description: 'A planned outreach step',
  example: {
    id: 5,
    target_account_id: 8,
    contact_id: 11,
    contact_name: 'Peter Gibbons',
    channel: 'email',
    scheduled_at: '2026-03-09T09:00:00.000Z',
    assigned_to: 4,
    notes: 'Intro to the new VP',
    created_by: 1,
    created_at: '2026-01-15T09:30:00.000Z',
  },
});

export const SendBulkEmailBody = z
  .object({
    subject: text(1, 255).openapi({
      description: 'Subject, 1 to 255 characters; merge fields as in body',
      example: 'Our Q3 roadmap for {{company}}',
    }),
    body: text(1, 50_000).openapi({
      description:
        'Body (plain text), 1 to 50000 characters, with merge fields filled per recipient: {{first_name}}, {{last_name}}, {{full_name}}, {{email}}, {{company}}, {{job_title}}, {{sender_name}}; {{first_name | there}} gives a fallback',
      example: 'Hello {{first_name | there}}, …',
    }),
    contact_ids: z
      .array(positiveId.openapi({ type: 'integer', description: 'A contact id' }))
      .min(1, 'must contain at least one id')
      .max(MAX_BULK_RECIPIENTS, `at most ${MAX_BULK_RECIPIENTS} recipients`)
      .optional()
      .openapi({
        description: `Recipients: live contacts of the account’s company with an email, at most ${MAX_BULK_RECIPIENTS}; absent: every stakeholder`,
        example: [11, 12],
      }),
    mode: z
      .enum(BULK_EMAIL_MODES, { error: `must be one of ${BULK_EMAIL_MODES.join(', ')}` })
      .default('individual')
      .openapi({
        description:
          'individual: one email per recipient, each recorded as the contact’s outreach activity (the default); bcc: each recipient gets a Bcc copy of their own (no other recipient shown, their own unsubscribe link)',
      }),
  })
  .openapi('SendBulkEmailRequest', {
    description: 'An email to the account’s stakeholders or to chosen contacts of its company',
    example: { subject: 'Our Q3 roadmap', body: 'Hello, …', contact_ids: [11, 12], mode: 'individual' },
  });

export type CreateTargetAccountInput = z.output<typeof CreateTargetAccountBody>;
export type UpdateTargetAccountInput = z.output<typeof UpdateTargetAccountBody>;
export type AddStakeholderInput = z.output<typeof AddStakeholderBody>;
export type AddOutreachPlanInput = z.output<typeof AddOutreachPlanBody>;
export type SendBulkEmailInput = z.output<typeof SendBulkEmailBody>;
