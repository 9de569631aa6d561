"""The loop and what it leans on; it never prints, and reports through callbacks.

May import: the leaves, intents, llm, storage, tools, config.
(The layers, bottom to top: tests/project/test_house.py.)

    arriving.py          a tool call's name, path and size while it streams (native, or written as text)
    batch.py             Batch: the tool calls of one reply (native or written in the text), run and answered
                         together
    budget.py            MessageBudget: the round trips one message may take (-I) and the checkpoints that renew
                         them
    calibration.py       our token estimate against the server's counts; a prompt the server cut, a count too low,
                         noticed
    callbacks.py         the Callbacks protocol the loop reports through, and the RunResult of a message
    checkpoint.py        the checkpoint's agent half: the summary asked of the model, the fresh context after it
    compaction.py        compaction: older turns replaced by the model's summary when the context nears the window
    context.py           ContextKeeper: each request fitted to the window; calibration; the overflow retry
    conversation.py      the messages, in OpenAI shape; the one place tool calls and results are written into them
    fit.py               without the model: earlier tool results cleared; a message too big loses its middle
    loop.py              ChatLoop: one message -> replies and tool round trips until a reply needs no tool
    prompt_cache.py      PromptCache: what the server holds and what a request makes it read again; how much a trim
                         frees
    prompt_pace.py       PromptPace: the prompt speed the server measured (kept in the profile); the time the next
                         prompt is given to be read (the first-data deadline)
    repeats.py           RepeatGuard: the same calls reply after reply answered with their results, then stopped;
                         RepeatingText: a reply repeating a block of text; RestartCheck: a continuation that starts
                         the answer again
    request.py           the next ChatRequest: settings, conversation, tool schemas or the [CALL] teaching
    side_by_side.py      run_calls: a reply's unasked reads run side by side (at most 4), the rest alone, all in
                         call order
    streaming.py         one reply as it streams: text and thinking to the callbacks, Ctrl-C and cut streams kept, a
                         reply looping in text stopped
    template_needs.py    what chat templates read back: call ids in the family's shape, the turn's reasoning
    tool_fallback.py     native tool calls or tools taught as text: the one "server refused tools" test, the retry
                         as text, and the profile that remembers it
    usage.py             SessionUsage: the tokens a session used
    verify.py            Verifier: the user's checks after a reply that changed files; the excerpt the model gets,
                         the repair rounds (at most 2), the consent a config's commands need
    window.py            WindowHold: before every request, a tool loop's too, the remedies when it would not fit
    checks/              see its __init__.py
"""
