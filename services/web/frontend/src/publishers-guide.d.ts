/** docs/publishers.md, docs/publishers-errors.md and docs/publishers-changelog.md rendered to HTML by the build (frontend/publishers-guide.ts). */
declare module 'virtual:publishers-guide' {
  export const guideHtml: string;
  export const errorsHtml: string;
  export const changelogHtml: string;
}
