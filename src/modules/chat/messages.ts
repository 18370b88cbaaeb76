/**
 * The chat message of each event, from the same `data` the event's webhook payload carries
 * (modules/webhooks/payloads.ts documents it), and the sample a test notification posts.
 */
import type { EventType } from '../../core/event-types';
import type { ChatMessage } from '../../providers/chat/interface';

type Data = Record<string, unknown>;

const text = (value: unknown): string =>
  value === null || value === undefined || value === '' ? '—' : String(value).slice(0, 300);

/** A title and the facts worth a line, per event. */
const RENDER: Record<EventType, (data: Data) => Pick<ChatMessage, 'title' | 'facts'>> = {
  'lead.created': (d) => ({
    title: `New lead: ${text(`${d.first_name ?? ''} ${d.last_name ?? ''}`.trim())}`,
    facts: [
      { label: 'Email', value: text(d.email) },
      { label: 'Company', value: text(d.company) },
      { label: 'Lead', value: `#${text(d.lead_id)}` },
    ],
  }),
  'lead.assigned': (d) => ({
    title: `Lead assigned: ${text(d.lead_name)}`,
    facts: [
      { label: 'Lead', value: `#${text(d.lead_id)}` },
      { label: 'Assigned to user', value: `#${text(d.assigned_to)}` },
    ],
  }),
  'intent.hot': (d) => ({
    title: `Hot lead: ${text(d.lead_name)}`,
    facts: [
      { label: 'Intent score', value: text(d.score) },
      { label: 'Email', value: text(d.email) },
      { label: 'Lead', value: `#${text(d.lead_id)}` },
    ],
  }),
  'booking.confirmed': (d) => ({
    title: `Meeting booked: ${text(d.title)}`,
    facts: [
      { label: 'Visitor', value: `${text(d.name)} <${text(d.email)}>` },
      { label: 'Starts', value: `${text(d.start)} (${text(d.timezone)})` },
      { label: 'Meeting', value: `#${text(d.meeting_id)}` },
    ],
  }),
  'deal.won': (d) => ({
    title: `Deal won: ${text(d.title)}`,
    facts: [
      { label: 'Value', value: text(d.value) },
      { label: 'Deal', value: `#${text(d.deal_id)}` },
    ],
  }),
  'deal.lost': (d) => ({
    title: `Deal lost: ${text(d.title)}`,
    facts: [
      { label: 'Value', value: text(d.value) },
      { label: 'Deal', value: `#${text(d.deal_id)}` },
    ],
  }),
  'import.finished': (d) => ({
    title: `Import finished: ${text(d.file_name)}`,
    facts: [
      { label: 'Status', value: text(d.status) },
      { label: 'Created', value: text(d.created) },
      { label: 'Failed', value: text(d.failed) },
    ],
  }),
};

/** The message of an event delivered to a subscribed channel. */
export function eventMessage(type: EventType, data: Data): ChatMessage {
  return { eventType: type, ...RENDER[type](data), test: false };
}

/** Sample data of each event for a test notification (marked as a test in its title). */
const SAMPLES: Record<EventType, Data> = {
  'lead.created': {
    lead_id: 1,
    first_name: 'Ada',
    last_name: 'Lovelace',
    email: 'ada@example.com',
    company: 'Analytical Engines',
  },
  'lead.assigned': { lead_id: 1, lead_name: 'Ada Lovelace', assigned_to: 1 },
  'intent.hot': { lead_id: 1, lead_name: 'Ada Lovelace', score: 87.5, email: 'ada@example.com' },
  'booking.confirmed': {
    meeting_id: 1,
    title: 'Meeting with Ada Lovelace',
    name: 'Ada Lovelace',
    email: 'ada@example.com',
    start: '2026-12-01T09:00:00.000Z',
    timezone: 'UTC',
  },
  'deal.won': { deal_id: 1, title: 'Analytical Engines, 10 seats', value: 12000 },
  'deal.lost': { deal_id: 1, title: 'Analytical Engines, 10 seats', value: 12000 },
  'import.finished': { file_name: 'leads.csv', status: 'completed', created: 120, failed: 2 },
};

export function testMessage(type: EventType): ChatMessage {
  const message = eventMessage(type, SAMPLES[type]);
  return { ...message, title: `[Test] ${message.title}`, test: true };
}
