import { body } from 'express-validator';
import { isRealDay } from '../filters/validate';

// What a supervisor's note must be, wherever it is written: a handling (src/admin/handling.ts), a batch,
// a note on a rider or beside a handling (src/admin/notes.ts). The table's CHECK holds the same bounds.

/** The longest note, in characters as a person counts them: a line break is one, whatever the script. */
export const NOTE_MAX = 2000;
/** Control characters (NUL and the like); a tab and line breaks are text. */
// eslint-disable-next-line no-control-regex -- finding them is the point
export const CONTROL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]/u;
/** Something visible: not a space, a line break, nor an invisible format character (U+200B and the like). */
const VISIBLE = /[^\s\p{Z}\p{Cf}\p{Cc}]/u;
const characters = (text: string) => [...text].length;

/** The note alone. */
export const noteCheck = () =>
  body('note')
    .isString()
    .withMessage('is required')
    .bail()
    // A browser sends each line break as CR LF: one break, one character.
    .customSanitizer((note: string) => note.replace(/\r\n?/g, '\n'))
    .trim()
    .notEmpty()
    .withMessage('is required: say what was done')
    .bail()
    .custom((note: string) => !CONTROL.test(note))
    .withMessage('must not hold control characters (such as NUL, often pasted from another program): remove them and save again')
    .bail()
    .custom((note: string) => VISIBLE.test(note))
    .withMessage('must hold visible words: it has only spaces or invisible characters')
    .bail()
    .custom((note: string) => characters(note) <= NOTE_MAX)
    .withMessage(
      (note: string) => `must be at most 2,000 characters (a line break counts one); it has ${characters(note).toLocaleString('en')}`,
    );

/** The note and the "until" day, as one row's form and a batch's form check them. */
export const noteChecks = (today: () => string) => [
  noteCheck(),
  body('until')
    .optional({ values: 'falsy' })
    .isString()
    .custom((v: string) => isRealDay(v))
    .withMessage('must be a real calendar day written YYYY-MM-DD')
    .bail()
    .custom((v: string) => v > today())
    .withMessage(() => `must be after today (${today()}): the row comes back on the list the day after it`),
];
