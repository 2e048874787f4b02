/** docs/publishers.md rendered to HTML by the build (frontend/publishers-guide.ts). */
declare module 'virtual:publishers-guide' {
  export const guideHtml: string;
}
