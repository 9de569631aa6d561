"""Refusals a key cannot fix by being typed again: a 403 says what the server said (not "bad key"), and
a spent quota or credit is said at once, not retried as if it were a rate limit. The bodies are the
ones the APIs send."""

from __future__ import annotations

import json

import pytest
from support.fakellm import Reply
from support.harness import server_args

KEY = "sk-test-refusals-0000"

OPENAI_REGION = {"error": {"code": "unsupported_country_region_territory",
                           "message": "Country, region, or territory not supported", "param": None,
                           "type": "request_forbidden"}}
# OpenRouter passes the provider's own body on in metadata.raw.
OPENROUTER_403 = {"error": {"message": "Provider returned error", "code": 403,
                            "metadata": {"raw": json.dumps(OPENAI_REGION), "provider_name": "OpenAI"}}}
OPENAI_QUOTA = {"error": {"message": "You exceeded your current quota, please check your plan and billing details. "
                                     "For more information on this error, read the docs: "
                                     "https://platform.openai.com/docs/guides/error-codes/api-errors.",
                          "type": "insufficient_quota", "param": None, "code": "insufficient_quota"}}
OPENROUTER_CREDITS = {"error": {"message": "Insufficient credits. Add more using https://openrouter.ai/settings/credits",
                                "code": 402}}
# A plain rate limit: it names the billing page too, and passes with a wait.
OPENAI_RATE_LIMIT = {"error": {"message": "Rate limit reached for gpt-4.1-mini in organization org-x on requests per "
                                          "min (RPM): Limit 3, Used 3, Requested 1. Please try again in 20s. Visit "
                                          "https://platform.openai.com/account/rate-limits to learn more. You can "
                                          "increase your rate limit by adding a payment method to your account at "
                                          "https://platform.openai.com/account/billing.",
                               "type": "requests", "param": None, "code": "rate_limit_exceeded"}}


def openai_run(run_ayder, fake):
    return run_ayder(*server_args(fake, "openai"), "q", env={"OPENAI_API_KEY": KEY})


@pytest.mark.parametrize("body", [OPENAI_REGION, OPENROUTER_403], ids=["openai", "openrouter"])
def test_403_keeps_the_servers_message(fake, run_ayder, body):
    fake.queue(Reply(status=403, error_body=body))
    result = openai_run(run_ayder, fake)
    assert result.returncode == 1
    assert "HTTP 403" in result.stderr
    assert "Country, region, or territory not supported" in result.stderr
    assert "rejected the API key" not in result.stderr
    assert len(fake.chat_requests()) == 1


def test_429_insufficient_quota_is_said_at_once_not_retried(fake, run_ayder, retry_pauses):
    fake.queue(Reply(status=429, error_body=OPENAI_QUOTA), Reply(text="never asked for"))
    result = openai_run(run_ayder, fake)
    assert result.returncode == 1
    assert "You exceeded your current quota" in result.stderr
    assert "rate limiting" not in result.stderr and "trying again will not help" in result.stderr
    assert len(fake.chat_requests()) == 1 and retry_pauses == []


def test_402_out_of_credits_shows_the_servers_message(fake, run_ayder, retry_pauses):
    fake.queue(Reply(status=402, error_body=OPENROUTER_CREDITS))
    result = openai_run(run_ayder, fake)
    assert result.returncode == 1
    assert "Insufficient credits. Add more using https://openrouter.ai/settings/credits" in result.stderr
    assert len(fake.chat_requests()) == 1 and retry_pauses == []


def test_a_real_rate_limit_is_still_waited_for(fake, run_ayder, retry_pauses):
    fake.queue(Reply(status=429, error_body=OPENAI_RATE_LIMIT, headers={"Retry-After": "2"}), Reply(text="later"))
    result = openai_run(run_ayder, fake)
    assert result.returncode == 0, result.stderr
    assert result.stdout == "later\n" and retry_pauses == [2.0]
