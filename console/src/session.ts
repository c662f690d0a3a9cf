/**
 * The service token lives in this tab's session storage only: never a URL, never local storage,
 * never a cookie. Closing the tab or signing out forgets it.
 */
const TOKEN = 'herald.console.token';
const WORKSPACE = 'herald.console.workspace';

export const session = {
  token: (): string | null => sessionStorage.getItem(TOKEN),
  workspace: (): string | null => sessionStorage.getItem(WORKSPACE),
  signIn(token: string) {
    sessionStorage.setItem(TOKEN, token);
  },
  setWorkspace(slug: string) {
    sessionStorage.setItem(WORKSPACE, slug);
  },
  signOut() {
    sessionStorage.removeItem(TOKEN);
    sessionStorage.removeItem(WORKSPACE);
  },
};
