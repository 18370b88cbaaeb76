/** Shapes of the public booking routes. */
import { z } from '@hono/zod-openapi';
import { email, timestampInput } from '../../core/schemas';
import { conflictResponse } from '../../core/routes';

export const SlugParam = z.object({
  slug: z
    .string()
    .max(64, 'must be at most 64 characters')
    .regex(/^[A-Za-z0-9-]+$/, 'must be letters, digits and dashes')
    .openapi({ param: { name: 'slug', in: 'path' }, description: 'The rep’s booking slug', example: 'ada-lovelace' }),
});

export const BookingProfileSchema = z
  .object({
    slug: z.string().openapi({ description: 'The booking slug' }),
    name: z.string().openapi({ description: 'The rep’s name' }),
    title: z.string().nullable().openapi({ description: 'The rep’s job title; null: none' }),
    organization_name: z.string().openapi({ description: 'The rep’s organization' }),
    duration: z.number().int().openapi({ description: 'Default meeting length, minutes' }),
    timezone: z.string().openapi({ description: 'The rep’s IANA time zone (working hours are in it)' }),
  })
  .openapi('BookingProfile', {
    description: 'The public face of a rep’s booking page: nothing private (no email, no phone)',
    example: {
      slug: 'ada-lovelace',
      name: 'Ada Lovelace',
      title: 'Head of Sales',
      organization_name: 'Analytical Engines Ltd',
      duration: 30,
      timezone: 'Europe/London',
    },
  });

const instant = timestampInput({ offset: 'required' });

export const ConfirmBookingBody = z
  .object({
    start: instant.openapi({ description: 'Start of a slot from the availability answer' }),
    end: instant.openapi({ description: 'Its end' }),
    name: z
      .string()
      .trim()
      .min(2, 'must be at least 2 characters')
      .max(100, 'must be at most 100 characters')
      .openapi({ description: 'Visitor’s name, 2 to 100 characters', example: 'Grace Hopper' }),
    email: email.openapi({ description: 'Visitor’s email: the lead is found or created by it' }),
    company: z
      .string()
      .trim()
      .max(200, 'must be at most 200 characters')
      .nullish()
      .openapi({ description: 'Visitor’s company, up to 200 characters', example: 'Navy Labs' }),
    phone: z
      .string()
      .trim()
      .max(50, 'must be at most 50 characters')
      .nullish()
      .openapi({ description: 'Visitor’s phone, up to 50 characters', example: '+1 202 555 0100' }),
    notes: z
      .string()
      .trim()
      .max(2_000, 'must be at most 2000 characters')
      .nullish()
      .openapi({ description: 'What the visitor wants to talk about, up to 2000 characters' }),
  })
  .openapi('ConfirmBookingRequest', {
    description: 'A slot and who books it',
    example: {
      start: '2026-03-09T09:00:00-04:00',
      end: '2026-03-09T09:30:00-04:00',
      name: 'Grace Hopper',
      email: 'grace@example.com',
      company: 'Navy Labs',
    },
  });
export type ConfirmBookingInput = z.infer<typeof ConfirmBookingBody>;

export const BookingConfirmationSchema = z
  .object({
    meeting_id: z.number().int().openapi({ description: 'The meeting created' }),
    title: z.string().openapi({ description: 'Its title' }),
    start: z.string().openapi({ description: 'Start, ISO 8601 in the rep’s zone' }),
    end: z.string().openapi({ description: 'End, ISO 8601 in the rep’s zone' }),
    timezone: z.string().openapi({ description: 'The rep’s zone' }),
    with: z.string().openapi({ description: 'The rep’s name' }),
  })
  .openapi('BookingConfirmation', {
    description: 'The booked meeting',
    example: {
      meeting_id: 7,
      title: 'Meeting with Grace Hopper',
      start: '2026-03-09T09:00:00-04:00',
      end: '2026-03-09T09:30:00-04:00',
      timezone: 'America/New_York',
      with: 'Ada Lovelace',
    },
  });

export const slotConflict = conflictResponse(
  'BookingSlotConflict',
  'The slot is not free: taken meanwhile, outside the working hours, too soon, or not a slot of the requested length (error.code slot_unavailable)',
  [{ code: 'slot_unavailable' }],
);
