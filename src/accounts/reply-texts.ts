import type { CompanyProfile } from './schemas.js';

/*
 * The automatic answers to consent words (issue #42): the confirmation of an opt-out and the HELP answer, in the
 * language of the word that triggered them. The defaults are data (below); an account may write its own text per
 * language (accounts.consent_reply_texts, console Settings). They live in the accounts area, not in inbound/, because
 * the settings schema and page need the languages and the defaults and accounts may not import inbound (layers.json);
 * src/inbound/consent-language.ts tells which language a word is, src/inbound/inbound-service.ts sends the text.
 */

/** The languages of the consent word lists (src/inbound/consent-words.ts CONSENT_LANGUAGES), in the same order. */
export const REPLY_LANGUAGES = ['en', 'de', 'fr', 'es', 'it', 'nl', 'da', 'sv', 'no', 'fi', 'pl', 'pt'] as const;
export type ReplyLanguage = (typeof REPLY_LANGUAGES)[number];
export const isReplyLanguage = (v: string): v is ReplyLanguage => (REPLY_LANGUAGES as readonly string[]).includes(v);

export const REPLY_LANGUAGE_NAMES: Readonly<Record<ReplyLanguage, string>> = {
  en: 'English',
  de: 'German (Deutsch)',
  fr: 'French (Français)',
  es: 'Spanish (Español)',
  it: 'Italian (Italiano)',
  nl: 'Dutch (Nederlands)',
  da: 'Danish (Dansk)',
  sv: 'Swedish (Svenska)',
  no: 'Norwegian (Norsk)',
  fi: 'Finnish (Suomi)',
  pl: 'Polish (Polski)',
  pt: 'Portuguese (Português)',
};

/** confirmation: an opt-out's confirmation; help: the answer to HELP and its equivalents. */
export type ReplyKind = 'confirmation' | 'help';
export const REPLY_KINDS: readonly ReplyKind[] = ['confirmation', 'help'];

/** An account's own text of a reply is at most this long (the same bound as opt_out_confirmation_text had). */
export const REPLY_TEXT_MAX = 320;

/**
 * The placeholders a reply's text may hold: every company merge field of the profile ({{company_name}} falls back to
 * the account's name), {{company_contacts}} (phone, e-mail and website that are set, joined by ", ") and
 * {{stop_keyword}} (the sender's opt-out keyword, STOP by default). Others are left as written, as before.
 */
export const REPLY_PLACEHOLDERS = ['company_name', 'company_contacts', 'stop_keyword'] as const;

interface LanguageReplies {
  /** Unsubscribed from the company, no more messages, and the language's re-subscribe word. */
  confirmation: string;
  /** The company, its contacts, and the language's stop word. */
  help: string;
  /** The same when the profile has no phone, e-mail or website. */
  helpWithoutContacts: string;
}

/**
 * The defaults, one SMS each: every text is GSM-7 (no UCS-2: the letters used are all in the GSM 03.38 basic set) and at
 * most 160 characters with a company name of 20 characters and three contact details of 60 (test/unit/reply-texts.test.ts).
 * Polish is written without its diacritics (ą ę ś ó …), as Polish bulk SMS commonly are: with them the text is UCS-2
 * and two or three segments; an account wanting them writes its own. French, Spanish and Portuguese are phrased to
 * avoid the letters GSM-7 lacks (ê ç á ã …). Each names the word of its own language that the lists
 * (src/inbound/consent-words.ts) read: re-subscribe ANMELDEN, INSCRIRE, ALTA, …; stop STOPP, BAJA, …; French says STOP,
 * the word the French SMS code of conduct prescribes (it opts out in every language). English keeps the texts of
 * issue #28, naming the sender's own keyword.
 */
export const REPLY_DEFAULTS: Readonly<Record<ReplyLanguage, LanguageReplies>> = {
  en: {
    confirmation: 'You are unsubscribed from {{company_name}}, no more messages. Reply START to resubscribe.',
    help: '{{company_name}}: help at {{company_contacts}}. Reply {{stop_keyword}} to unsubscribe.',
    helpWithoutContacts: '{{company_name}}. Reply {{stop_keyword}} to unsubscribe.',
  },
  de: {
    confirmation: 'Sie sind von {{company_name}} abgemeldet und erhalten keine Nachrichten mehr. Antworten Sie ANMELDEN, um sich wieder anzumelden.',
    help: '{{company_name}}: Hilfe unter {{company_contacts}}. Antworten Sie STOPP, um sich abzumelden.',
    helpWithoutContacts: '{{company_name}}: Antworten Sie STOPP, um sich abzumelden.',
  },
  fr: {
    confirmation: 'Désinscription de {{company_name}} confirmée : vous ne recevrez plus de messages. Répondez INSCRIRE pour vous réinscrire.',
    help: 'Aide {{company_name}} : {{company_contacts}}. Répondez STOP pour vous désinscrire.',
    helpWithoutContacts: '{{company_name}} : répondez STOP pour vous désinscrire.',
  },
  es: {
    confirmation: 'Te has dado de baja de {{company_name}} y no te enviaremos mensajes. Responde ALTA para volver a suscribirte.',
    help: '{{company_name}}: ayuda en {{company_contacts}}. Responde BAJA para darte de baja.',
    helpWithoutContacts: '{{company_name}}: responde BAJA para darte de baja.',
  },
  it: {
    confirmation: 'Disiscrizione da {{company_name}} confermata: non riceverai più messaggi. Rispondi ISCRIVI per iscriverti di nuovo.',
    help: 'Assistenza {{company_name}}: {{company_contacts}}. Rispondi BASTA per non ricevere più messaggi.',
    helpWithoutContacts: '{{company_name}}: rispondi BASTA per non ricevere più messaggi.',
  },
  nl: {
    confirmation: 'Je bent afgemeld bij {{company_name}} en ontvangt geen berichten meer. Antwoord AANMELDEN om je weer aan te melden.',
    help: '{{company_name}}: hulp via {{company_contacts}}. Antwoord STOPPEN om je af te melden.',
    helpWithoutContacts: '{{company_name}}: antwoord STOPPEN om je af te melden.',
  },
  da: {
    confirmation: 'Du er afmeldt fra {{company_name}} og modtager ikke flere beskeder. Svar TILMELD for at tilmelde dig igen.',
    help: '{{company_name}}: hjælp på {{company_contacts}}. Svar AFMELD for at afmelde dig.',
    helpWithoutContacts: '{{company_name}}: svar AFMELD for at afmelde dig.',
  },
  sv: {
    confirmation: 'Du är avregistrerad från {{company_name}} och får inga fler meddelanden. Svara STARTA för att registrera dig igen.',
    help: '{{company_name}}: hjälp via {{company_contacts}}. Svara STOPPA för att avregistrera dig.',
    helpWithoutContacts: '{{company_name}}: svara STOPPA för att avregistrera dig.',
  },
  no: {
    confirmation: 'Du er meldt av {{company_name}} og får ingen flere meldinger. Svar MELD PÅ for å melde deg på igjen.',
    help: '{{company_name}}: hjelp på {{company_contacts}}. Svar AVSLUTT for å melde deg av.',
    helpWithoutContacts: '{{company_name}}: svar AVSLUTT for å melde deg av.',
  },
  fi: {
    confirmation: 'Tilaus peruttu: {{company_name}} ei lähetä sinulle enää viestejä. Vastaa ALOITA, jos haluat tilata uudelleen.',
    help: '{{company_name}}: asiakaspalvelu {{company_contacts}}. Vastaa LOPETA, niin viestit loppuvat.',
    helpWithoutContacts: '{{company_name}}: vastaa LOPETA, niin viestit loppuvat.',
  },
  pl: {
    confirmation: 'Wypisano Cie z listy {{company_name}}, nie otrzymasz wiecej wiadomosci. Odpowiedz WZNOW, aby zapisac sie ponownie.',
    help: '{{company_name}}, pomoc: {{company_contacts}}. Odpowiedz REZYGNUJ, aby sie wypisac.',
    helpWithoutContacts: '{{company_name}}: odpowiedz REZYGNUJ, aby sie wypisac.',
  },
  pt: {
    confirmation: 'Descadastro de {{company_name}} confirmado, sem mais mensagens. Responda VOLTAR para receber de novo.',
    help: '{{company_name}}: ajuda em {{company_contacts}}. Responda SAIR para cancelar as mensagens.',
    helpWithoutContacts: '{{company_name}}: responda SAIR para cancelar as mensagens.',
  },
};

/** An account's own texts per language (missing: the default). The English confirmation is opt_out_confirmation_text. */
export interface ConsentReplyTexts {
  confirmation: Partial<Record<ReplyLanguage, string>>;
  help: Partial<Record<ReplyLanguage, string>>;
}

export const NO_REPLY_TEXTS: ConsentReplyTexts = Object.freeze({ confirmation: Object.freeze({}), help: Object.freeze({}) });

/** What a reply is built from: the account's settings and company profile (Account, or the row read in a transaction). */
export interface ReplyAccount {
  /** The account's name, when the profile has no company_name. */
  name: string;
  companyProfile: CompanyProfile;
  /** The account's English confirmation (the setting of issue #28, kept as it was). */
  optOutConfirmationText: string | null;
  consentReplyTexts: ConsentReplyTexts;
}

/** The text as written: the account's own for the language, else the default (HELP's default without contacts when none are set). */
export function replyTemplate(kind: ReplyKind, language: ReplyLanguage, account: Pick<ReplyAccount, 'optOutConfirmationText' | 'consentReplyTexts'>, hasContacts = true): string {
  const own = kind === 'confirmation' && language === 'en' ? account.optOutConfirmationText : account.consentReplyTexts[kind][language];
  if (own) return own;
  const d = REPLY_DEFAULTS[language];
  return kind === 'confirmation' ? d.confirmation : hasContacts ? d.help : d.helpWithoutContacts;
}

const PLACEHOLDER = /\{\{\s*([a-z_]+)\s*\}\}/g;

/**
 * The reply's text to send: the template of `kind` in `language` (replyTemplate) with its placeholders replaced
 * (REPLY_PLACEHOLDERS). `stopKeyword` is the sender's trigger (senders.stop_keyword).
 */
export function replyText(kind: ReplyKind, language: ReplyLanguage, account: ReplyAccount, stopKeyword: string): string {
  const p = account.companyProfile;
  const contacts = [p.company_phone, p.company_email, p.company_website].map((v) => v?.trim()).filter((v): v is string => !!v);
  const values: Record<string, string | undefined> = {
    ...p,
    company_name: p.company_name?.trim() || account.name,
    company_contacts: contacts.join(', '),
    stop_keyword: stopKeyword,
  };
  return replyTemplate(kind, language, account, contacts.length > 0).replace(PLACEHOLDER, (all, name: string) => {
    const v = values[name];
    return typeof v === 'string' ? v.trim() : all;
  });
}

/** accounts.consent_reply_language as stored: null or anything unknown is English. */
export const replyLanguageOf = (stored: string | null): ReplyLanguage => (stored !== null && isReplyLanguage(stored) ? stored : 'en');

/** accounts.consent_reply_texts as stored (JSON written by AccountsService); anything unreadable or unknown is left out. */
export function readReplyTexts(stored: string | null | undefined): ConsentReplyTexts {
  if (!stored) return NO_REPLY_TEXTS;
  try {
    const v = JSON.parse(stored) as Partial<Record<ReplyKind, unknown>>;
    const pick = (x: unknown): Partial<Record<ReplyLanguage, string>> =>
      x && typeof x === 'object' ? Object.fromEntries(Object.entries(x).filter(([k, t]) => isReplyLanguage(k) && typeof t === 'string' && t !== '')) : {};
    return { confirmation: pick(v.confirmation), help: pick(v.help) };
  } catch {
    return NO_REPLY_TEXTS;
  }
}
