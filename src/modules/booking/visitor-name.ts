/**
 * The booking visitor's one free-form name (2 to 100 characters) as the lead's first_name and
 * last_name, which hold 2 to 50 each, counted as the lead's own rules count them (UTF-16 code
 * units, as POST /api/lead/add does). The lead is created by the leads module's one creation path,
 * which takes its input as given: this is where the booking keeps the lead's rules.
 *
 * - The name is cut at the first word boundary whose two parts both fit: "Grace Brewster Hopper"
 *   is Grace / Brewster Hopper. A first word too short for a first name takes the next word with
 *   it ("J Robert Smith": J Robert / Smith); a name that fits no two-part split but fits whole is
 *   all first name with last_name empty ("Cher", "Grace H", "X Ng"), as a one-word name always was.
 *   Nothing is lost: first and last, joined by a space, are the name (whitespace runs as one space).
 * - A name no word boundary can split so (a word longer than 50) is cut between characters,
 *   never inside one (an emoji's two code units stay together): the first name as long as it may
 *   be, the rest the last name. Nothing is lost either: first + last is the name.
 * - Only a name of 99 or 100 code units with a two-unit character across the 50th cannot be held
 *   whole: its last name loses its final character(s).
 *
 * The name as typed is kept whole on the meeting (title, attendee) and on the lead's
 * `meeting_booked` feed entry (`visitor_name`) in every case.
 */
const MIN = 2;
const MAX = 50;

const fits = (part: string) => part.length >= MIN && part.length <= MAX;

export interface LeadName {
  first: string;
  last: string;
}

/** The end (in code units) of each character of `text`, in order. */
function characterEnds(text: string): number[] {
  const ends: number[] = [];
  let at = 0;
  for (const character of text) {
    at += character.length;
    ends.push(at);
  }
  return ends;
}

/** `text` cut to at most `max` code units, between characters. */
function cutBetweenCharacters(text: string, max: number): string {
  const ends = characterEnds(text).filter((end) => end <= max);
  return text.slice(0, ends.at(-1) ?? 0);
}

export function leadNameOf(name: string): LeadName {
  const words = name.split(/\s+/).filter(Boolean);
  for (let k = 1; k <= words.length; k++) {
    const first = words.slice(0, k).join(' ');
    const last = words.slice(k).join(' ');
    if (fits(first) && (last === '' || fits(last))) return { first, last };
  }
  // A word longer than the limit: cut between characters, the first name as long as it may be.
  const whole = words.join(' ');
  const ends = characterEnds(whole).filter((end) => end <= MAX);
  for (const end of ends.reverse()) {
    const first = whole.slice(0, end).trim();
    const last = whole.slice(end).trim();
    if (fits(first) && fits(last)) return { first, last };
  }
  const first = cutBetweenCharacters(whole, MAX).trim();
  return { first, last: cutBetweenCharacters(whole.slice(first.length).trim(), MAX).trim() };
}
