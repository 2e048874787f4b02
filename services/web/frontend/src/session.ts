import { QueryCache, QueryClient, MutationCache, useQuery } from '@tanstack/react-query';
import { ApiError, api } from './api';
import { noteSessionEnd } from './session-end';
import type { Session } from './types';

export const SESSION_KEY = ['session'] as const;

/** A 401 from any workspace call means the session is gone: forget it, and the layout goes to sign-in. */
function onApiError(error: unknown): void {
  if (error instanceof ApiError && error.status === 401) {
    noteSessionEnd('by-service');
    queryClient.setQueryData(SESSION_KEY, null);
  }
}

export const queryClient = new QueryClient({
  queryCache: new QueryCache({ onError: onApiError }),
  mutationCache: new MutationCache({ onError: onApiError }),
  defaultOptions: {
    queries: {
      retry: (count, error) => !(error instanceof ApiError && error.status < 500) && count < 2,
      refetchOnWindowFocus: false,
      staleTime: 5_000,
    },
  },
});

export async function fetchSession(): Promise<Session | null> {
  try {
    return await api<Session>('/api/auth/session');
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) return null;
    throw error;
  }
}

export function useSession() {
  return useQuery({ queryKey: SESSION_KEY, queryFn: fetchSession, staleTime: 60_000 });
}

/** The signed-in account inside the workspace layout (which redirects to sign-in without one). */
export function useAccount(): Session {
  const session = useSession();
  if (!session.data) throw new Error('useAccount outside the signed-in workspace');
  return session.data;
}
