/**
 * What the rest of the code may ask of a telephony provider (numbers, calls, recordings) and of an
 * AI voice agent platform (an agent call). Each provider speaks its own wire format behind this
 * (local.ts, twilio.ts, vapi.ts); failures are ProviderFailure (providers/failures.ts), never the
 * provider's own text.
 */
import type { AgentSettings, CallStatus, NumberType, TranscriptTurn } from '../../db/schema';
import type { RecordingMedia } from './recording';

export interface NumberSearch {
  /** ISO 3166-1 alpha-2 country; US by default. */
  country: string;
  type: NumberType;
  areaCode?: string;
  contains?: string;
  limit: number;
}

export interface AvailableNumber {
  phone_number: string;
  friendly_name: string;
  type: NumberType;
  locality: string | null;
  region: string | null;
  iso_country: string;
  /** The monthly price charged to the calling wallet, in cents of USD. */
  monthly_price_cents: number;
}

export interface NumberPurchase {
  phoneNumber: string;
  friendlyName: string | null;
  /** Where the provider posts a call's status changes for calls to and from this number. */
  statusCallback: string | null;
  voiceUrl: string | null;
}

export interface PlacedCall {
  providerCallId: string;
  status: CallStatus;
}

export interface OutboundCall {
  to: string;
  from: string;
  /** TwiML to run when answered (the browser and simple calls), or a URL that answers it. */
  twiml?: string;
  url?: string;
  statusCallback: string;
  record: boolean;
}

export interface TelephonyProvider {
  readonly name: 'local' | 'twilio';
  searchNumbers(search: NumberSearch): Promise<AvailableNumber[]>;
  purchaseNumber(purchase: NumberPurchase): Promise<{ providerSid: string }>;
  placeCall(call: OutboundCall): Promise<PlacedCall>;
  /** The recording's bytes (WAV, typed audio/wav) from where the provider keeps it; anything else is refused. */
  fetchRecording(url: string): Promise<RecordingMedia>;
}

export interface AgentCall {
  to: string;
  agent: AgentSettings;
  /** Where the platform posts its end-of-call report. */
  serverUrl: string;
  /** Our call id, carried in the platform's metadata so its report names it. */
  callId: number;
}

/** A call we may have asked the platform to place: how to recognise it among the platform's calls. */
export interface CallLookup {
  /** Our call id, as startCall sent it in the platform's metadata. */
  callId: number;
  /** The number dialled (E.164). */
  to: string;
  /** No call of ours was created before this (our dial claim, less a margin for clocks). */
  since: Date;
}

export interface AgentPlatform {
  readonly name: 'vapi';
  startCall(call: AgentCall): Promise<PlacedCall>;
  /**
   * Whether the platform placed the call, for a dial whose answer was lost (a 5xx, no answer, a
   * delivery that died): the platform's call id, or null when it surely has no such call. Throws a
   * ProviderFailure when it cannot be asked ('unavailable') or cannot tell ('rejected').
   */
  findCall?(call: CallLookup): Promise<string | null>;
  /**
   * The recording an end-of-call report names (WAV, typed audio/wav). The platform's key goes
   * only to the platform's own API host; any other https URL is fetched without a credential.
   */
  fetchRecording(url: string): Promise<RecordingMedia>;
}

/** What an end-of-call report (or the simulator) says about a finished call. */
export interface CallOutcome {
  status: CallStatus;
  durationSec: number;
  answeredAt: Date | null;
  endedAt: Date;
  transcript: TranscriptTurn[] | null;
  /** Where the provider keeps the recording (copied into R2 by the voice job). */
  recordingUrl: string | null;
  /** Why a failed call failed, in words for the user (the provider's own code at most). */
  failureReason?: string | null;
}
