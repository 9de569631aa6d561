"""An MCP server over stdio with 64 tools, made in a loop: 16 subjects, 4 actions each. Enough schemas
to fill most of an 8k window, for the tests of keeping them out of it (mcp_servers/schema_room.py).
On the standard library alone (support/stdio_mcp.py): it starts in a few hundredths of a second."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/, for support/
from support.stdio_mcp import StdioServer  # noqa: E402

SUBJECTS = ["invoice", "customer", "shipment", "warehouse", "ticket", "calendar", "payroll", "contract",
            "forecast", "inventory", "supplier", "refund", "campaign", "survey", "budget", "timesheet"]
ACTIONS = ["list", "get", "create", "archive"]

server = StdioServer("many", instructions="business records: invoices, customers, shipments and more")


def make(action: str, subject: str):
    def tool(record_id: str, note: str = "", limit: int = 10) -> str:
        return f"{action} {subject} {record_id}: done by the many server"

    return tool


for subject in SUBJECTS:
    for action in ACTIONS:
        server.tool(name=f"{action}_{subject}",
                    description=f"{action.capitalize()} {subject} records of the company's {subject} ledger, "
                                f"by record id, with an optional note kept in the audit log and a limit "
                                f"on how many {subject} records come back.")(make(action, subject))


if __name__ == "__main__":
    server.run()
