/**
 * A mutation whose `mutate` is ignored while a call is in flight. A disabled button is not enough: the
 * pending state reaches the page a render later, so a double click would still send two requests and the
 * second would come back as a 409 although the first worked.
 */
import { useMutation, type UseMutationOptions, type UseMutationResult } from '@tanstack/react-query';
import { useCallback, useRef } from 'react';

export function useSafeMutation<TData, TVariables = void>(options: UseMutationOptions<TData, Error, TVariables>): UseMutationResult<TData, Error, TVariables> {
  const mutation = useMutation(options);
  const inFlight = useRef(false);
  const { mutateAsync } = mutation;
  const mutate = useCallback(
    (variables: TVariables) => {
      if (inFlight.current) return;
      inFlight.current = true;
      // The failure is already in `error` and the query client's handler; the promise is only for the guard.
      mutateAsync(variables)
        .catch(() => undefined)
        .finally(() => {
          inFlight.current = false;
        });
    },
    [mutateAsync],
  );
  return { ...mutation, mutate } as UseMutationResult<TData, Error, TVariables>;
}
