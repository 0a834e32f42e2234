// The admin pages' stylesheets (public/admin/css/), each one concern and under 400 lines, in the order
// of the cascade: of two rules as specific, the later sheet's wins, so every page links them in this
// order and no other. The pages' head (views/shared/stylesheets.ejs, through links.stylesheets) and the
// HTTP parser's error page (src/http/client-error.ts) both link them from this list.
export const ADMIN_STYLESHEETS = [
  'base.css',
  'forms.css',
  'lists.css',
  'pages.css',
  'phone.css',
  'attention.css',
  'sign-in.css',
  'batch-bar.css',
] as const;

/** The stylesheets' addresses, in order, under the admin pages' assets (`assets`, served from public/admin). */
export const stylesheetHrefs = (assets: string): string[] => ADMIN_STYLESHEETS.map((file) => `${assets}/css/${file}`);
