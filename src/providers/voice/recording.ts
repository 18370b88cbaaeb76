/**
 * A call recording as we keep and serve it: WAV audio, stored as `audio/wav` whatever type the
 * remote named. Twilio's `.wav` media (`audio/x-wav`) and Vapi's recordings (`wav;l16` unless an
 * assistant asks otherwise) are WAV; their storage may also answer a generic binary type. Any
 * other answer (HTML, JSON, another format) is refused: a copied recording is served inline from
 * our own origin, so what the remote claims must never become the type we serve.
 */
import { ProviderFailure } from '../failures';

/** The one type a stored recording has (the download declares it). */
export const RECORDING_CONTENT_TYPE = 'audio/wav';

export interface RecordingMedia {
  body: ArrayBuffer;
  contentType: typeof RECORDING_CONTENT_TYPE;
}

const WAV_TYPES = new Set(['audio/wav', 'audio/x-wav', 'audio/wave', 'audio/vnd.wave']);
/** Storage buckets (S3, GCS) answer these for an object uploaded without a type. */
const GENERIC_TYPES = new Set(['application/octet-stream', 'binary/octet-stream']);

const ascii = (bytes: Uint8Array, from: number, to: number) => String.fromCharCode(...bytes.subarray(from, to));

/** Whether the bytes open as a WAV file (RIFF container, WAVE form). */
export function isWav(body: ArrayBuffer): boolean {
  const bytes = new Uint8Array(body);
  return bytes.length >= 12 && ascii(bytes, 0, 4) === 'RIFF' && ascii(bytes, 8, 12) === 'WAVE';
}

/**
 * The recording in a successful answer, as we store it; a ProviderFailure (`rejected`, never
 * retried) when the answer is not WAV audio by its declared type and its bytes.
 */
export async function recordingMedia(provider: string, response: Response): Promise<RecordingMedia> {
  const declared = (response.headers.get('content-type') ?? '').split(';')[0].trim().toLowerCase();
  const refused = () =>
    new ProviderFailure('rejected', provider, response.status, 'the recording is not WAV audio; it was not copied');
  if (declared && !WAV_TYPES.has(declared) && !GENERIC_TYPES.has(declared)) {
    await response.body?.cancel().catch(() => undefined);
    throw refused();
  }
  const body = await response.arrayBuffer();
  if (!isWav(body)) throw refused();
  return { body, contentType: RECORDING_CONTENT_TYPE };
}
