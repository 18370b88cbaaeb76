/** The package ships its list as JSON (index.json) without types. */
declare module 'disposable-email-domains' {
  const domains: string[];
  export default domains;
}
