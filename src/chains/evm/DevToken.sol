// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// @title DevToken: the project's minimal ERC-20 for local anvil chains.
/// @notice The devnet and the tests place this runtime code with `anvil_setCode` at the registry's real token
/// addresses (USDC, USDT, WETH, WBTC, cbBTC...), so the router talks to the addresses it uses in production.
/// No constructor ever runs there: every piece of state, metadata included, lives in storage that
/// `anvil_setStorageAt` writes (dev-token.ts `placeDevTokens`). `mint` is open to anyone: this code is for dev chains only.
///
/// Storage layout (Solidity assigns slots in declaration order; dev-token.ts checks it against solc's
/// storageLayout output at compile time and writes slots 3 to 5):
///   slot 0  balanceOf    mapping(address => uint256)  balance of a at keccak256(abi.encode(a, 0))
///   slot 1  allowance    mapping(address => mapping(address => uint256))
///                        allowance of (o, s) at keccak256(abi.encode(s, keccak256(abi.encode(o, 1))))
///   slot 2  totalSupply  uint256
///   slot 3  name         string: up to 31 bytes in the slot itself (bytes left-aligned, lowest byte = 2 * length);
///                        longer: the slot holds 2 * length + 1 and the bytes start at keccak256(abi.encode(3))
///   slot 4  symbol       string, encoded as name
///   slot 5  decimals     uint8 in the lowest byte
/// Code placed without storage answers name "" , symbol "" and decimals 0: placing always writes slots 3 to 5.
/// The interface follows viem's erc20Abi (same parameter names), plus mint and transferBatch.
contract DevToken {
    mapping(address => uint256) public balanceOf;
    mapping(address => mapping(address => uint256)) public allowance;
    uint256 public totalSupply;
    string public name;
    string public symbol;
    uint8 public decimals;

    event Transfer(address indexed from, address indexed to, uint256 value);
    event Approval(address indexed owner, address indexed spender, uint256 value);

    function transfer(address recipient, uint256 amount) external returns (bool) {
        _move(msg.sender, recipient, amount);
        return true;
    }

    function approve(address spender, uint256 amount) external returns (bool) {
        allowance[msg.sender][spender] = amount;
        emit Approval(msg.sender, spender, amount);
        return true;
    }

    /// An allowance of type(uint256).max is never decreased, as in common production tokens.
    function transferFrom(address sender, address recipient, uint256 amount) external returns (bool) {
        uint256 allowed = allowance[sender][msg.sender];
        if (allowed != type(uint256).max) {
            require(allowed >= amount, "DevToken: insufficient allowance");
            unchecked {
                allowance[sender][msg.sender] = allowed - amount;
            }
        }
        _move(sender, recipient, amount);
        return true;
    }

    /// Dev-only: creates `amount` for `to`, emitting Transfer from the zero address as ERC-20 mints do.
    function mint(address to, uint256 amount) external {
        require(to != address(0), "DevToken: mint to the zero address");
        totalSupply += amount;
        unchecked {
            balanceOf[to] += amount;
        }
        emit Transfer(address(0), to, amount);
    }

    /// Dev-only: several transfers from the caller in one transaction, one Transfer log each (as a multicall or a
    /// batch payout makes them), so tests can put two deposits in one transaction.
    function transferBatch(address[] calldata recipients, uint256[] calldata amounts) external returns (bool) {
        require(recipients.length == amounts.length, "DevToken: recipients and amounts differ in length");
        for (uint256 i = 0; i < recipients.length; i++) _move(msg.sender, recipients[i], amounts[i]);
        return true;
    }

    function _move(address from, address to, uint256 amount) private {
        require(to != address(0), "DevToken: transfer to the zero address");
        uint256 balance = balanceOf[from];
        require(balance >= amount, "DevToken: insufficient balance");
        unchecked {
            balanceOf[from] = balance - amount;
            balanceOf[to] += amount;
        }
        emit Transfer(from, to, amount);
    }
}
