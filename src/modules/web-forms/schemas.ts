/**
 * Hosted web forms (beyond the spec): what a form asks for, where it sends the visitor after a
 * submission, and what every lead it creates gets (tags, assignee).
 */
import { z } from '@hono/zod-openapi';
import { webUrl } from '../../core/schemas';
import { integerInput } from '../leads';

/** The lead fields a form may ask for, in the order a form shows them by default, with their labels. */
export const FORM_FIELD_LABELS = {
  first_name: 'First name',
  last_name: 'Last name',
  email: 'Email',
  phone_number: 'Phone',
  company: 'Company',
  job_title: 'Job title',
  profile_url: 'Profile URL',
} as const;
export type FormFieldName = keyof typeof FORM_FIELD_LABELS;
const FIELD_NAMES = Object.keys(FORM_FIELD_LABELS) as [FormFieldName, ...FormFieldName[]];

/** What a form asks for when created without `fields`. */
export const DEFAULT_FORM_FIELDS = [
  { name: 'first_name' as const, required: true, label: null },
  { name: 'last_name' as const, required: false, label: null },
  { name: 'email' as const, required: true, label: null },
  { name: 'company' as const, required: false, label: null },
];

const FormField = z
  .object({
    name: z.enum(FIELD_NAMES).openapi({ description: 'The lead field asked for' }),
    required: z.boolean().default(false).openapi({ description: 'Whether the visitor must fill it (default false)' }),
    label: z
      .string()
      .trim()
      .min(1)
      .max(100, 'must be at most 100 characters')
      .nullish()
      .openapi({ description: 'The label shown; default: the field’s own name (First name, Email, …)' }),
  })
  .openapi('WebFormField', {
    description: 'One lead field a form asks for',
    example: { name: 'email', required: true, label: 'Work email' },
  });

const fieldsInput = z
  .array(FormField)
  .min(1, 'must ask for at least one field')
  .max(FIELD_NAMES.length)
  .superRefine((fields, ctx) => {
    const names = fields.map((field) => field.name);
    if (new Set(names).size !== names.length) ctx.addIssue({ code: 'custom', message: 'lists a field twice' });
    if (!names.some((name) => name === 'email' || name === 'phone_number' || name === 'profile_url'))
      ctx.addIssue({ code: 'custom', message: 'must ask for email, phone_number or profile_url (a lead needs one)' });
  })
  .openapi({
    description:
      'The lead fields to ask for, in order (first_name, last_name, email, phone_number, company, job_title, profile_url), each possibly required; at least one of email, phone_number, profile_url',
  });

const redirectUrl = webUrl(2048)
  .nullish()
  .openapi({ description: 'Where the visitor is sent (303) after submitting; null: the thank-you page' });

const thankYou = z
  .string()
  .trim()
  .max(1000, 'must be at most 1000 characters')
  .nullish()
  .openapi({ description: 'Text of the thank-you page (plain text, up to 1000 characters)' });

const formTags = z
  .array(z.string().trim().min(1, 'must not be empty').max(50, 'must be at most 50 characters'))
  .max(20, 'at most 20 tags')
  .openapi({ description: 'Tag names given to every lead the form creates (created as tag lookups on first use)' });

const assignedTo = integerInput
  .nullish()
  .openapi({ description: 'User of the organization every lead the form creates is assigned to' });

const name = z.string().trim().min(2, 'must be at least 2 characters').max(100, 'must be at most 100 characters');

export const AddWebFormBody = z
  .object({
    name: name.openapi({ description: 'Name of the form, 2 to 100 characters (shown as the page title)' }),
    fields: fieldsInput.optional(),
    redirect_url: redirectUrl,
    thank_you_message: thankYou,
    tags: formTags.optional(),
    assigned_to: assignedTo,
  })
  .openapi('AddWebFormRequest', {
    description: 'A new hosted form; without `fields` it asks for first name, last name, email and company',
    example: {
      name: 'Contact us',
      fields: [
        { name: 'first_name', required: true },
        { name: 'email', required: true, label: 'Work email' },
      ],
      thank_you_message: 'Thanks, we will be in touch.',
      tags: ['website'],
    },
  });
export type AddWebFormInput = z.output<typeof AddWebFormBody>;

export const UpdateWebFormBody = z
  .object({
    name: name.optional().openapi({ description: 'New name, 2 to 100 characters' }),
    fields: fieldsInput.optional(),
    redirect_url: redirectUrl,
    thank_you_message: thankYou,
    tags: formTags.optional(),
    assigned_to: assignedTo,
  })
  .openapi('UpdateWebFormRequest', {
    description:
      'The form settings to change (omitted ones stay; null clears redirect_url, thank_you_message, assigned_to); the form_link never changes',
    example: { redirect_url: 'https://example.com/thanks' },
  });
export type UpdateWebFormInput = z.output<typeof UpdateWebFormBody>;

export const WebFormSchema = z
  .object({
    id: z.number().int().openapi({ description: 'The form’s id' }),
    name: z.string().openapi({ description: 'Name of the form' }),
    form_link: z.string().openapi({ description: 'The unguessable public identifier of the form (24 characters)' }),
    url: z.string().openapi({ description: 'The public page: /api/v1/web-form/{form_link} on this host' }),
    fields: z.array(FormField).openapi({ description: 'The fields asked for, in order' }),
    redirect_url: z.string().nullable().openapi({ description: 'Where a visitor goes after submitting' }),
    thank_you_message: z.string().nullable().openapi({ description: 'Text of the thank-you page' }),
    tags: z.array(z.string()).openapi({ description: 'Tag names given to the leads' }),
    assigned_to: z.number().int().nullable().openapi({ description: 'Assignee of the leads' }),
    created_at: z.string().openapi({ description: 'When the form was created', format: 'date-time' }),
    updated_at: z.string().openapi({ description: 'When the form last changed', format: 'date-time' }),
  })
  .openapi('WebForm', {
    description: 'A hosted lead-capture form',
    example: {
      id: 3,
      name: 'Contact us',
      form_link: 'pX3v9Qm2Lr7sT0aB5cD8eF1g',
      url: 'https://api.example.com/api/v1/web-form/pX3v9Qm2Lr7sT0aB5cD8eF1g',
      fields: [{ name: 'email', required: true, label: 'Work email' }],
      redirect_url: null,
      thank_you_message: 'Thanks, we will be in touch.',
      tags: ['website'],
      assigned_to: null,
      created_at: '2026-01-15T09:30:00.000Z',
      updated_at: '2026-01-15T09:30:00.000Z',
    },
  });
export type WebFormView = z.infer<typeof WebFormSchema>;

export const FormLinkParam = z.object({
  form_link: z
    .string()
    .regex(/^[A-Za-z0-9_-]{16,64}$/, 'must be a form link (16 to 64 URL-safe characters)')
    .openapi({
      param: { name: 'form_link', in: 'path' },
      description: 'The form’s public link (form_link of the form)',
      example: 'pX3v9Qm2Lr7sT0aB5cD8eF1g',
    }),
});
