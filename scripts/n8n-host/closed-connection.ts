/** A fetch that failed because the server closed the connection under it, which a read may send again. */
/** Whether fetch failed because the server closed the connection it reused (undici's SocketError, ECONNRESET). */
export function closedUnderUs(error: unknown): boolean {
	const cause = (error as { cause?: { code?: string; message?: string } } | undefined)?.cause;
	return (
		cause?.code === 'UND_ERR_SOCKET' ||
		cause?.code === 'ECONNRESET' ||
		/other side closed/.test(cause?.message ?? '')
	);
}

/** What a request answers when it should be sent again on a new connection. */
export const CLOSED_UNDER_US = Symbol('closed under us');

/** The request's answer, or CLOSED_UNDER_US when it may be sent again and the connection was closed under it. */
export function orClosedUnderUs<T>(
	request: Promise<T>,
	mayRepeat: boolean,
): Promise<T | typeof CLOSED_UNDER_US> {
	return request.catch((error: unknown) => {
		if (mayRepeat && closedUnderUs(error)) return CLOSED_UNDER_US;
		throw error;
	});
}
