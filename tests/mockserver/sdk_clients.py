"""Drives `kforge mock-server` with an official Python SDK, as a user's own client would.

Usage: sdk_clients.py --base-url http://127.0.0.1:PORT --api API [--stream] [--error]

API is one of openai-chat, openai-responses (the `openai` package), anthropic (`anthropic`) and gemini
(`google-genai`). The server's script (tests/mockserver/sdk_test.cpp) answers every prompt containing
"sdk probe" with kExpected below and every prompt containing "rate limit probe" with HTTP 429. The script
checks what the SDK made of the reply (answer, reasoning, usage, finish reason; or the exception class and
status for --error) and exits 0 when every field is as scripted, 1 naming each field that is not.
"""
import argparse
import sys

ANSWER = "Hello from the mock: \u00fcn\u00efcode \u2713 and a kernel ```cuda\n__global__ void k() {}\n```"
REASONING = "First I think about tiling, then about the epilogue."
INPUT, CACHED, OUTPUT, REASONING_TOKENS = 40, 8, 12, 7
MODEL = "sdk-probe-model"

problems = []


def expect(what, got, want):
    if got != want:
        problems.append(f"{what}: got {got!r}, want {want!r}")


def openai_client(base_url):
    import openai
    return openai.OpenAI(base_url=base_url + "/v1", api_key="sk-test", max_retries=0, timeout=30)


def chat(base_url, stream, prompt):
    client = openai_client(base_url)
    messages = [{"role": "user", "content": prompt}]
    if not stream:
        r = client.chat.completions.create(model=MODEL, messages=messages)
        m = r.choices[0].message
        return dict(answer=m.content, reasoning=getattr(m, "reasoning_content", None),
                    finish=r.choices[0].finish_reason, input=r.usage.prompt_tokens,
                    cached=r.usage.prompt_tokens_details.cached_tokens,
                    output=r.usage.completion_tokens - r.usage.completion_tokens_details.reasoning_tokens,
                    reasoning_tokens=r.usage.completion_tokens_details.reasoning_tokens)
    answer, reasoning, finish, usage = "", "", None, None
    for chunk in client.chat.completions.create(model=MODEL, messages=messages, stream=True,
                                                stream_options={"include_usage": True}):
        if chunk.usage is not None:
            usage = chunk.usage
        for choice in chunk.choices:
            answer += choice.delta.content or ""
            reasoning += getattr(choice.delta, "reasoning_content", None) or ""
            finish = choice.finish_reason or finish
    if usage is None:
        problems.append("the stream carried no usage chunk")
        return dict(answer=answer, reasoning=reasoning, finish=finish)
    return dict(answer=answer, reasoning=reasoning, finish=finish, input=usage.prompt_tokens,
                cached=usage.prompt_tokens_details.cached_tokens,
                output=usage.completion_tokens - usage.completion_tokens_details.reasoning_tokens,
                reasoning_tokens=usage.completion_tokens_details.reasoning_tokens)


def responses(base_url, stream, prompt):
    client = openai_client(base_url)
    if stream:
        deltas, final = "", None
        for event in client.responses.create(model=MODEL, input=prompt, stream=True):
            if event.type == "response.output_text.delta":
                deltas += event.delta
            elif event.type == "response.completed":
                final = event.response
        if final is None:
            problems.append("the stream ended without response.completed")
            return dict(answer=deltas)
        expect("streamed deltas against the final output_text", deltas, final.output_text)
        r = final
    else:
        r = client.responses.create(model=MODEL, input=prompt)
    summary = "".join(part.text for item in r.output if item.type == "reasoning" for part in item.summary)
    u = r.usage
    return dict(answer=r.output_text, reasoning=summary, finish=r.status, input=u.input_tokens,
                cached=u.input_tokens_details.cached_tokens,
                output=u.output_tokens - u.output_tokens_details.reasoning_tokens,
                reasoning_tokens=u.output_tokens_details.reasoning_tokens)


def anthropic_messages(base_url, stream, prompt):
    import anthropic
    client = anthropic.Anthropic(base_url=base_url, api_key="sk-ant-test", max_retries=0, timeout=30)
    kwargs = dict(model=MODEL, max_tokens=1024, messages=[{"role": "user", "content": prompt}],
                  thinking={"type": "enabled", "budget_tokens": 512})
    if stream:
        with client.messages.stream(**kwargs) as s:
            streamed = "".join(s.text_stream)
            m = s.get_final_message()
        expect("streamed text against the final message", streamed,
               "".join(b.text for b in m.content if b.type == "text"))
    else:
        m = client.messages.create(**kwargs)
    # Anthropic reports the visible answer and the thinking as one output figure (no reasoning split here).
    return dict(answer="".join(b.text for b in m.content if b.type == "text"),
                reasoning="".join(b.thinking for b in m.content if b.type == "thinking"),
                finish=m.stop_reason, input=m.usage.input_tokens + m.usage.cache_read_input_tokens,
                cached=m.usage.cache_read_input_tokens, output_and_reasoning=m.usage.output_tokens)


def gemini(base_url, stream, prompt):
    from google import genai
    from google.genai import types
    client = genai.Client(api_key="gemini-test", http_options=types.HttpOptions(
        base_url=base_url, api_version="v1beta", retry_options=types.HttpRetryOptions(attempts=1)))
    config = types.GenerateContentConfig(thinking_config=types.ThinkingConfig(include_thoughts=True))
    chunks = (list(client.models.generate_content_stream(model=MODEL, contents=prompt, config=config)) if stream
              else [client.models.generate_content(model=MODEL, contents=prompt, config=config)])
    answer = reasoning = ""
    for c in chunks:
        for part in c.candidates[0].content.parts or []:
            if part.thought:
                reasoning += part.text or ""
            else:
                answer += part.text or ""
    last = chunks[-1]
    u = last.usage_metadata
    return dict(answer=answer, reasoning=reasoning, finish=last.candidates[0].finish_reason.name,
                input=u.prompt_token_count, cached=u.cached_content_token_count or 0,
                output=u.candidates_token_count, reasoning_tokens=u.thoughts_token_count)


CALLS = {"openai-chat": chat, "openai-responses": responses, "anthropic": anthropic_messages, "gemini": gemini}
FINISH = {"openai-chat": "stop", "openai-responses": "completed", "anthropic": "end_turn", "gemini": "STOP"}


def check_reply(api, stream, base_url):
    got = CALLS[api](base_url, stream, "sdk probe: write a kernel")
    expect("answer", got.get("answer"), ANSWER)
    expect("reasoning", got.get("reasoning"), REASONING)
    expect("finish reason", got.get("finish"), FINISH[api])
    expect("input tokens", got.get("input"), INPUT)
    expect("cached tokens", got.get("cached"), CACHED)
    if "output_and_reasoning" in got:
        expect("output tokens (answer and thinking)", got["output_and_reasoning"], OUTPUT + REASONING_TOKENS)
    else:
        expect("output tokens", got.get("output"), OUTPUT)
        expect("reasoning tokens", got.get("reasoning_tokens"), REASONING_TOKENS)


def check_rate_limit(api, stream, base_url):
    """A scripted 429 must surface as the SDK's own rate-limit error, with its status."""
    try:
        CALLS[api](base_url, stream, "rate limit probe")
    except Exception as e:  # each SDK raises its own class; the name and status are what users catch on
        status = getattr(e, "status_code", None) or getattr(e, "code", None)
        expect("status of the raised error", status, 429)
        want = {"gemini": "ClientError"}.get(api, "RateLimitError")
        expect("class of the raised error", type(e).__name__, want)
        return
    problems.append("a scripted HTTP 429 raised nothing")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--base-url", required=True)
    ap.add_argument("--api", required=True, choices=sorted(CALLS))
    ap.add_argument("--stream", action="store_true")
    ap.add_argument("--error", action="store_true")
    a = ap.parse_args()
    (check_rate_limit if a.error else check_reply)(a.api, a.stream, a.base_url)
    for p in problems:
        print(f"{a.api}{' stream' if a.stream else ''}: {p}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
